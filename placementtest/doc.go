// Package placementtest lets an administrator unit-test placement against
// the site's own slurm.conf before restarting slurmctld: load the conf,
// describe a load, state a request in sbatch's words, and assert where it
// runs, that it is rejected and why, when it would start, or which nodes
// it prefers. It reads like a sentence in a _test.go file:
//
//	site := placementtest.Load(t, "testdata/slurm.conf")
//	site.Running(t, "cpn-[001-004]:cpus=40,end=2h").Down(t, "cpn-010")
//	site.Request(t, "-N2 -p general-compute -C IB").RunsWithin(t, "cpn-[005-020]")
//	site.Request(t, "-N2000").IsRejected(t, "node_config")
//
// A failed assertion prints the selection pipeline's explanation (per
// node set, what each filter removed), so the administrator sees why.
// Load also reads the topology.conf beside the slurm.conf ("topology.conf"
// or "<site>.topology.conf"), or the one WithTopology names, so placement
// is topology-aware as under topology/tree; NoTopology ignores it. A
// topology.conf naming nodes the slurm.conf lacks, or a node under two
// leaf switches, stops the test with a message; LenientTopology accepts
// them as Slurm does (topology.Lenient).
//
// RunTable runs a whole table (package check's format) as subtests.
// It works with any testing.TB and composes with testify.
package placementtest
