// Package hostlist reads and writes Slurm hostlist expressions, the compact
// notation Slurm uses everywhere a set of node names appears: slurm.conf
// NodeName= and Nodes= values, topology.conf switch members, squeue output
// and the -w/-x options of sbatch.
//
// It models the behaviour of Slurm's hostlist functions (hostlist_create,
// hostlist_ranged_string, "scontrol show hostnames" and "scontrol show
// hostlist") as described in the SLURM Programmer's Guide (seed 003) and the
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
// # Limits
//
// One range may name at most [MaxRangeSize] (65,536) hosts. A whole
// expression may name at most [DefaultLimit] (1<<20) hosts unless
// [ExpandLimit] is given another limit; the total is computed before anything
// is allocated, so n[0-999999999] fails at once. Numbers have at most 18
// digits. Errors are [*Error] values carrying the byte offset of the problem.
package hostlist
