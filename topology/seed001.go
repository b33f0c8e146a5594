package topology

import "fmt"

// Seed001 returns the node names and switch tree of the AUCSCHED3 paper's emulated
// system: 1024 nodes (node0000 ... node1023) under 32 leaf switches of 32
// nodes (leaf00 ... leaf31), 4 middle switches of 8 leaves (mid0 ... mid3)
// and one root ("root"), so levels run 0 (leaves) to 2 (root). The paper's
// Figure 2 is not in its text; this is the regular tree its 1024 nodes
// suggest, documented so results can be compared. Each node has 16 cores
// and 3 GPUs in the paper; selectnodes and sim add those.
func Seed001() ([]string, *Tree) {
	names := make([]string, 1024)
	for i := range names {
		names[i] = fmt.Sprintf("node%04d", i)
	}
	var specs []SwitchSpec
	for l := 0; l < 32; l++ {
		specs = append(specs, SwitchSpec{Name: fmt.Sprintf("leaf%02d", l), Nodes: names[l*32 : (l+1)*32]})
	}
	for m := 0; m < 4; m++ {
		var leaves []string
		for l := m * 8; l < (m+1)*8; l++ {
			leaves = append(leaves, fmt.Sprintf("leaf%02d", l))
		}
		specs = append(specs, SwitchSpec{Name: fmt.Sprintf("mid%d", m), Switches: leaves})
	}
	specs = append(specs, SwitchSpec{Name: "root", Switches: []string{"mid0", "mid1", "mid2", "mid3"}})
	t, err := New(names, specs)
	if err != nil {
		panic("topology: the AUCSCHED3 paper's tree is invalid: " + err.Error()) // a bug here, not bad input
	}
	return names, t
}
