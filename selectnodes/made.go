package selectnodes

// unmade reports whether c is nil or a zero Cluster, one not made by New
// or FromConfig.
func (c *Cluster) unmade() bool { return c == nil || c.config == nil || c.status == nil }

// mustBeMade panics, naming the method, when c is nil or a zero Cluster:
// the message says what to do where a nil dereference deep in the
// pipeline would not.
func (c *Cluster) mustBeMade(method string) {
	if c.unmade() {
		panic("selectnodes: Cluster." + method + " on a nil or zero Cluster: make one with New or FromConfig")
	}
}
