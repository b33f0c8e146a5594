package selectnodes

// MostGRES is the largest count among node i's configured GRES named name,
// each of its lines counted apart (gpu:a100:2,gpu:v100:4 gives 4), the
// load aside: what Node(i).GRES says, without copying the node, for a
// planner reading every node at every pass. 0 when the node has none or
// i is not a node.
func (c *Cluster) MostGRES(i int, name string) int64 {
	c.mustBeMade("MostGRES")
	if i < 0 || i >= len(c.nodes) {
		return 0
	}
	var most int64
	for _, g := range c.nodes[i].GRES {
		if g.Name == name {
			most = max(most, g.Count)
		}
	}
	return most
}

// MostGRES is Cluster.MostGRES on the snapshot.
func (s *Snapshot) MostGRES(i int, name string) int64 { return s.c.MostGRES(i, name) }

// MostCPUs is node i's CPUs, the load aside: what FreeCPUs gives when
// nothing runs there (the node's reported CPUs where they count), without
// copying the node, for a planner asking what an idle machine could hold.
// 0 when i is not a node.
func (c *Cluster) MostCPUs(i int) int {
	c.mustBeMade("MostCPUs")
	if i < 0 || i >= len(c.nodes) {
		return 0
	}
	return c.effective(i).CPUs
}

// MostCPUs is Cluster.MostCPUs on the snapshot.
func (s *Snapshot) MostCPUs(i int) int { return s.c.MostCPUs(i) }
