// Package check answers placement questions about a site's own
// slurm.conf — would this request run, where, when, or why not — under a
// described load, and runs tables of such questions with their expected
// answers: the engine behind `hpcsched check` and package placementtest.
//
// A Site is a configuration read from disk (Include lines resolved beside
// it and along extra search folders) plus a load: running jobs
// (sbatch.Running specs), down and drained nodes, and advance reservations
// that withhold nodes for a time window. Requests are written in sbatch's
// words (package sbatch). With SlurmCompat the answers are Slurm 22.05's
// (selectnodes.WithSlurmCompat, features.Legacy).
//
// # Tables
//
// A table holds one case a line, four fields separated by tabs:
//
//	conf	load	request	expected
//
// conf is a slurm.conf path relative to the table's folder (or the
// configured conf folder); load is "-" or space-separated items — a
// hostlist (one running job holding those whole nodes), a running spec
// with ':' (n[1-2]:cpus=8,mem=16G,end=2h), down=HOSTLIST or
// drain=HOSTLIST; request is sbatch options; expected is a hostlist,
// REJECT, or REJECT:<class> with class one of node_config, part_config,
// busy, held, invalid. Lines starting with '#' and blank lines are
// skipped. ../shared/slurm2205/vectors.tsv is such a table.
//
// The package's tests replay placements recorded on a real Slurm 22.05.8
// (testdata/slurm2205-own: its README says how) in Slurm-compatible mode
// and log the agreement per family; the lines that do not yet agree are
// listed with the rule each lacks.
//
// # Limits
//
// A table is at most MaxTableBytes and MaxCases cases; a bad line is a
// *TableError with its line and column.
package check
