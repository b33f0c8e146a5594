// Package features parses, validates and evaluates Slurm --constraint
// expressions (job feature requirements) over node bitmaps.
//
// It models the constraint grammar of modern Slurm (sbatch --constraint) and,
// with the Legacy option, the grammar of Slurm 2.0 analysed in the Novotný thesis
// (section 2.4.3, "--constraint", and sections 3.2.3-3.3 on
// _get_req_features and count features); no Slurm code was used. This
// package is the grammar and the per-node evaluation; selectnodes solves the
// counted terms and matching ORs over node sets.
//
// # Grammar
//
//	a&b   a,b      AND (',' is a synonym)
//	a|b            OR
//	a|b&c          strictly left to right, no precedence: (a|b)&c
//	a&(b|c)        one level of parentheses
//	[r1|r2|r3]     matching OR: every node of the job has the same one
//	[a*2&b*4]      counted terms: 2 nodes with a and 4 with b
//	[(a|b)*1&c*2]  a counted term may be a parenthesised expression
//	f4&[f1|f0]     one bracket group, ANDed with a per-node part
//	gpu*4          a single counted term may stand unbracketed
//
// Feature names are letters, digits and "_-.:" (so key:value features such as
// GPU_SKU:V100 and CPU_FRQ:2.30GHz work). Blanks between tokens are ignored.
// Anything else is a *SyntaxError giving the position (a position.Position
// whose Offset is the byte offset) and what is wrong.
//
// With Legacy, counted terms may also stand unbracketed in an AND chain
// (A&B*1&C*2&D: per node A&D, counts B*1 and C*2) and a matching-OR bracket may
// sit anywhere in the chain (A|B&[C|D]|E: per node A|B&(C|D)|E, matching OR
// [C|D]), as Slurm 2.0 through 22.05 accepted.
//
// # Evaluation
//
// An Index maps each feature to the bitset of nodes that have it. Nodes
// returns the nodes satisfying the per-node part of an expression: its
// chain with a matching-OR bracket read as the OR of its alternatives and
// counted terms left out (they constrain how many nodes, not which ones may
// be used). Alternatives and Counts expose the bracket as data.
//
// # Budgets
//
// An expression is at most MaxLength (64 KiB) bytes, checked before
// anything is parsed; a count is at most MaxCount (1<<24); parentheses nest
// one level, so parsing needs no deep stack. Going beyond a limit is a
// *SyntaxError that wraps ErrBudget and names the limit. Parsing needs
// memory proportional to the expression. Validate's
// *UnknownFeatureError carries the name's position too; position.Of finds
// either.
package features
