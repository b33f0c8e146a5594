package selectnodes

import (
	"slices"

	"github.com/hpcsched/hpcsched/hostlist"
)

// Slurm 22.05.8 numbers its nodes in name order, not in the order of the
// NodeName lines: on a conf whose lines are q[1-2] then p[1-2] (equal
// weights), select/linear's -N3 takes p[1-2],q1 and cons_tres's -N1 takes
// p1 (testdata/slurm2205-own, order_*.conf; ../shared/slurm2205 vector
// 46). The node index is what consecutive runs, "the first node" and
// --contiguous are about, so SlurmCompat clusters built by FromConfig
// take that order; config records (node sets) still follow the lines.
// The default mode keeps the file's order, which is what a reader of the
// file expects.

// compatRequested reports whether opts ask for SlurmCompat, without
// building anything (options only set fields).
func compatRequested(opts []Option) bool {
	probe := Cluster{config: &config{}, status: &status{}}
	for _, o := range opts {
		if o != nil {
			o(&probe)
		}
	}
	return probe.compat
}

// slurmNodeOrder sorts nodes by name, naturally (tux9 before tux10), as
// hostlist.Sort does; equal names keep their order (New rejects them).
func slurmNodeOrder(nodes []node) {
	names := make([]string, len(nodes))
	for i := range nodes {
		names[i] = nodes[i].Name
	}
	hostlist.Sort(names)
	rank := make(map[string]int, len(names))
	for k, n := range names {
		if _, dup := rank[n]; !dup {
			rank[n] = k
		}
	}
	slices.SortStableFunc(nodes, func(a, b node) int { return rank[a.Name] - rank[b.Name] })
}
