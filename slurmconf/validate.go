package slurmconf

import (
	"fmt"

	"github.com/hpcsched/hpcsched/position"
)

// Validate checks what no single line can: every node name is defined once,
// every partition name once, and every partition names only defined nodes.
// It returns every problem found as a position.ErrorList sorted by
// position (errors.As finds each *Error), or nil.
func (c *Config) Validate() error {
	var errs position.ErrorList
	defined := make(map[string]Pos, c.NodeCount())
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for _, name := range n.Names {
			if first, dup := defined[name]; dup {
				errs.Add(n.Pos, fmt.Sprintf("node %s is already defined at %s", name, first))
				continue
			}
			defined[name] = n.Pos
		}
	}
	parts := make(map[string]Pos, len(c.Partitions))
	for i := range c.Partitions {
		p := &c.Partitions[i]
		if first, dup := parts[p.Name]; dup {
			errs.Add(p.Pos, fmt.Sprintf("partition %s is already defined at %s", p.Name, first))
		}
		parts[p.Name] = p.Pos
		for _, name := range p.Nodes {
			if _, ok := defined[name]; !ok {
				errs.Add(p.Pos, fmt.Sprintf("partition %s: node %s is not defined", p.Name, name))
				break
			}
		}
	}
	errs.Sort()
	return errs.Err()
}
