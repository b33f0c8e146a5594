package selectnodes

import "github.com/hpcsched/hpcsched/topology"

// Seed001 builds the AUCSCHED3 paper's emulated system: 1024 nodes of 16 cores and 3
// GPUs each (node0000 ... node1023, GRES gpu:3) in one default partition
// "batch", under the switch tree of topology.Seed001 (32 leaves of 32
// nodes, 4 middle switches, a root), with ConsRes as the selector and
// topology-aware placement. opts come after those defaults.
func Seed001(opts ...Option) (*Cluster, error) {
	names, tree := topology.Seed001()
	nodes := make([]Node, len(names))
	for i, name := range names {
		nodes[i] = Node{Name: name, CPUs: 16, RealMemory: 64000, Weight: 1, GRES: []GRES{{Name: "gpu", Count: 3}}}
	}
	base := []Option{WithSelector(ConsRes{}), WithTopology(tree)}
	return New(nodes, []Partition{{Name: "batch", Nodes: names, Default: true}}, append(base, opts...)...)
}
