package slurmconf

import "iter"

// The NodeLines of a Config are configurations, each holding the names of
// every line configured alike (fold.go), so the order of the file is not
// the order of Nodes then Names. Each line a NodeLine holds records the
// place of its first name among all the file's names (NodeLine.ord and
// foldedLine.ord); fileOrder puts the lines back in that order.

// fileOrder is every node name in file order, as the walk a calls fn on
// for each run of names that stand together in the file: Names[first:
// first+count] of Nodes[line], until fn returns false. When the Nodes are
// not as Parse made them (a Config made or changed by hand, so that the
// recorded places no longer tile the names), it is Nodes then Names order.
// It costs 4 bytes a name while it works.
func (c *Config) fileOrder(fn func(line, first, count int) bool) {
	if c == nil { // a nil Config defines no node
		return
	}
	if w, ok := c.recordedOrder(); ok {
		w.walk(c, fn)
		return
	}
	for i := range c.Nodes {
		if n := len(c.Nodes[i].Names); n > 0 && !fn(i, 0, n) {
			return
		}
	}
}

// lineOrd is where line j of n starts: its first name's index in Names and
// its place in the file.
func (n *NodeLine) lineOrd(j int) (first, ord int) {
	if j == 0 {
		return 0, n.ord
	}
	f := n.foldedAt(j - 1)
	return int(f.first), int(f.ord)
}

// orderWalk walks the lines Parse recorded in the order of their places.
type orderWalk struct {
	startOf []int32 // NodeLine index + 1 at the place where one of its lines starts
	next    []int   // per NodeLine, its next line in file order
}

// recordedOrder is the walk of the places Parse recorded, or false when
// they do not tile the names exactly once.
func (c *Config) recordedOrder() (orderWalk, bool) {
	total := c.NodeCount()
	if total == 0 || len(c.Nodes) > 1<<31-2 {
		return orderWalk{}, total == 0
	}
	w := orderWalk{startOf: make([]int32, total), next: make([]int, len(c.Nodes))}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for j := range n.Lines() {
			first, ord := n.lineOrd(j)
			if first >= n.LineStart(j+1) {
				continue // a line of no name (a NodeLine made by hand)
			}
			if ord < 0 || ord >= total || w.startOf[ord] != 0 {
				return w, false
			}
			w.startOf[ord] = int32(i + 1)
		}
	}
	ok := w.walk(c, func(int, int, int) bool { return true })
	for i := range c.Nodes { // every line with names was visited
		n := &c.Nodes[i]
		for j := w.next[i]; ok && j < n.Lines(); j++ {
			ok = n.LineStart(j) >= n.LineStart(j+1)
		}
		w.next[i] = 0
	}
	return w, ok
}

// walk calls fn on the runs of names in the order of their places, as
// long as the places tile the names, reporting whether they did (fn
// returning false stops the walk and reports true).
func (w orderWalk) walk(c *Config, fn func(line, first, count int) bool) bool {
	run := [3]int{-1, 0, 0} // line, first, count of the run being gathered
	for at := 0; at < len(w.startOf); {
		i := int(w.startOf[at]) - 1
		if i < 0 {
			return false
		}
		n := &c.Nodes[i]
		j := w.next[i]
		for j < n.Lines() && n.LineStart(j) >= n.LineStart(j+1) {
			j++ // lines of no name
		}
		if j >= n.Lines() {
			return false
		}
		first, ord := n.lineOrd(j)
		count := n.LineStart(j+1) - first
		if ord != at || first+count > len(n.Names) {
			return false // positions a caller changed
		}
		w.next[i] = j + 1
		if run[0] == i && run[1]+run[2] == first {
			run[2] += count // the line continues the one before
		} else {
			if run[0] >= 0 && !fn(run[0], run[1], run[2]) {
				return true
			}
			run = [3]int{i, first, count}
		}
		at += count
	}
	if run[0] >= 0 {
		fn(run[0], run[1], run[2])
	}
	return true
}

// NodeOrder yields every node name in the order the file defines them, as
// the index of its NodeLine in Nodes and its index in that line's Names:
// for i, k := range cfg.NodeOrder() reads cfg.Nodes[i].Names[k]. This is
// Slurm's node order (a node's index), which NodeLines, grouping the lines
// configured alike, do not keep. Names appended to a NodeLine count as
// written on its last line. For a Config not made by Parse or ParseFile,
// or whose NodeLines were changed so that the recorded places no longer fit
// their names (names removed, lines copied or dropped), it is the order of
// Nodes, then of each line's Names. Working out the order costs 4 bytes a
// name while it lasts; NodeOrder only reads the Config.
func (c *Config) NodeOrder() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		c.fileOrder(func(line, first, count int) bool {
			for k := first; k < first+count; k++ {
				if !yield(line, k) {
					return false
				}
			}
			return true
		})
	}
}

// NodeNames returns every node name defined, in the order NodeOrder gives
// (the file's). The slice is the caller's; the strings are immutable. A
// nil Config has none.
func (c *Config) NodeNames() []string {
	all := make([]string, 0, c.NodeCount())
	c.fileOrder(func(line, first, count int) bool {
		all = append(all, c.Nodes[line].Names[first:first+count]...)
		return true
	})
	return all
}

// nameRun is a run of names that stand together in the file: Names[first:
// first+count] of Nodes[line].
type nameRun struct{ line, first, count int32 }

// runs is fileOrder's runs, gathered.
func (c *Config) runs() []nameRun {
	var out []nameRun
	c.fileOrder(func(line, first, count int) bool {
		out = append(out, nameRun{int32(line), int32(first), int32(count)})
		return true
	})
	return out
}
