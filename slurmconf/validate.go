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
	// name -> its NodeLine and place there: a small value keeps a
	// million-node map small
	defined := make(map[string]nameAt, c.NodeCount())
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for k, name := range n.Names {
			if first, dup := defined[name]; dup {
				errs.Add(n.NamePos(k), fmt.Sprintf("node %s is already defined at %s", name,
					c.Nodes[first.line].NamePos(int(first.k))))
				continue
			}
			defined[name] = nameAt{int32(i), int32(k)}
		}
	}
	parts := make(map[string]Pos, len(c.Partitions))
	for i := range c.Partitions {
		p := &c.Partitions[i]
		if first, dup := parts[p.Name]; dup {
			errs.Add(p.Pos, fmt.Sprintf("partition %s is already defined at %s", p.Name, first))
		}
		parts[p.Name] = p.Pos
		if name, ok := c.undefined(p.Nodes, defined); !ok {
			errs.Add(p.Pos, fmt.Sprintf("partition %s: node %s is not defined", p.Name, name))
		}
	}
	errs.Sort()
	return errs.Err()
}

// nameAt is where a node name is defined: c.Nodes[line].Names[k].
type nameAt struct{ line, k int32 }

// undefined returns the first of names that no node line defines. Names
// listed in definition order, the usual case, are matched by walking the
// node lines alongside, without a map lookup each.
func (c *Config) undefined(names []string, defined map[string]nameAt) (string, bool) {
	li, k := 0, 0 // the next defined name: c.Nodes[li].Names[k]
	for _, name := range names {
		for li < len(c.Nodes) && k >= len(c.Nodes[li].Names) {
			li, k = li+1, 0
		}
		if li < len(c.Nodes) && c.Nodes[li].Names[k] == name {
			k++
			continue
		}
		if _, ok := defined[name]; !ok {
			return name, false
		}
	}
	return "", true
}
