package slurmconf

import "errors"

// Validate checks what no single line can: every node name is defined once,
// every partition name once, and every partition names only defined nodes.
// It returns all problems found, joined, each an *Error.
func (c *Config) Validate() error {
	var errs []error
	defined := make(map[string]Pos, c.NodeCount())
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for _, name := range n.Names {
			if first, dup := defined[name]; dup {
				errs = append(errs, errAt(n.Pos, 0, "node %s is already defined at %s", name, first))
				continue
			}
			defined[name] = n.Pos
		}
	}
	parts := make(map[string]Pos, len(c.Partitions))
	for i := range c.Partitions {
		p := &c.Partitions[i]
		if first, dup := parts[p.Name]; dup {
			errs = append(errs, errAt(p.Pos, 0, "partition %s is already defined at %s", p.Name, first))
		}
		parts[p.Name] = p.Pos
		for _, name := range p.Nodes {
			if _, ok := defined[name]; !ok {
				errs = append(errs, errAt(p.Pos, 0, "partition %s: node %s is not defined", p.Name, name))
				break
			}
		}
	}
	return errors.Join(errs...)
}
