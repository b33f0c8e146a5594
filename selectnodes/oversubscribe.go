package selectnodes

// OversubscribesCPUs reports whether some partition lets jobs share a
// node's CPUs (OverSubscribe=YES or FORCE with a count other than 1), so
// that a node without a free CPU may still take a job there. It is
// Partitions' answer without copying every partition.
func (c *Cluster) OversubscribesCPUs() bool {
	c.mustBeMade("OversubscribesCPUs")
	for i := range c.parts {
		if m := c.parts[i].Sharing.Mode; (m == ShareYes || m == ShareForce) && c.parts[i].Sharing.Count != 1 {
			return true
		}
	}
	return false
}
