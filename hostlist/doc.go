// Package hostlist reads and writes Slurm hostlist expressions, the compact
// notation Slurm uses everywhere a set of node names appears: slurm.conf
// NodeName= and Nodes= values, topology.conf switch members, squeue output
// and the -w/-x options of sbatch.
//
// It models the behaviour of Slurm's hostlist functions (hostlist_create,
// hostlist_ranged_string, "scontrol show hostnames" and "scontrol show
// hostlist") as described in the SLURM Programmer's Guide and the
// slurm.conf documentation; no Slurm code was used.
//
// # Grammar
//
// An expression is a list of tokens separated by commas or white space. A
// comma inside brackets belongs to the token. A token is
//
//	prefix[ranges]suffix[ranges]suffix...
//
// where ranges is a comma-separated list of numbers (7) and inclusive ranges
// (1-16). Each range keeps the zero padding of its low number: tux[001-010]
// is tux001 ... tux010 while tux[1-010] is tux1 ... tux10. Several bracket
// groups multiply, earlier groups varying slowest, so rack[0-1]_blade[2,3]
// names four hosts. Stepping (1-10:2) is not supported, as in Slurm.
// Empty tokens (a trailing comma) are ignored; duplicates are kept.
//
// # Budgets
//
// Every limit is checked before the memory it protects is allocated, and
// an expression over one fails with an [*Error] that wraps [ErrBudget],
// names the limit and gives the position of the token at fault:
//
//   - one range may name at most [MaxRangeSize] (65,536) hosts;
//   - one name may have at most [MaxGroups] (1,024) bracket groups;
//   - numbers have at most 18 digits, so no size arithmetic overflows;
//   - an expansion may name at most [DefaultLimit] (1<<20) hosts and take
//     at most [DefaultByteLimit] (32 MiB) of name text; [ExpandLimit] and
//     [ExpandBudget] choose other limits. Both totals are computed from the
//     parse, so n[0-999999999] or a 64 KB prefix before [0-65535] fail at
//     once; peak memory is about the byte budget plus 24 bytes per name.
//
// Parsing itself needs memory proportional to the expression, and the
// expander is iterative (an odometer over the groups), so no input can
// exhaust the stack. [Count] applies only the per-range and per-name
// limits. Errors carry a [position.Position] (Offset is the byte offset in
// the expression) and are [*Error] values.
package hostlist
