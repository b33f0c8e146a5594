package slurmconf

import "iter"

// The NodeLines of a Config are configurations, each holding the names of
// every line configured alike (fold.go), so the order of the file is not
// the order of Nodes then Names. Each line a NodeLine holds records the
// place of its first name among all the file's names (NodeLine.ord and
// foldedLine.ord); segments puts the lines back in that order.

// nameRun is a run of names that stand together in the file: Names[first:
// first+count] of Nodes[line].
type nameRun struct{ line, first, count int }

// segments is every node name in file order, as runs. When the Nodes are
// not as Parse made them (a Config made or changed by hand, so that the
// recorded places no longer tile the names), it is Nodes then Names order.
// It costs 4 bytes a name while it works, and 24 bytes a run it returns.
func (c *Config) segments() []nameRun {
	if segs, ok := c.recordedOrder(); ok {
		return segs
	}
	segs := make([]nameRun, 0, len(c.Nodes))
	for i := range c.Nodes {
		if n := len(c.Nodes[i].Names); n > 0 {
			segs = append(segs, nameRun{line: i, first: 0, count: n})
		}
	}
	return segs
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

// recordedOrder is segments from the places Parse recorded, or false when
// they do not tile the names exactly once.
func (c *Config) recordedOrder() ([]nameRun, bool) {
	total := c.NodeCount()
	if total == 0 || len(c.Nodes) > 1<<31-2 {
		return nil, total == 0
	}
	startOf := make([]int32, total) // NodeLine index + 1 at the place where one of its lines starts
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for j := range n.Lines() {
			first, ord := n.lineOrd(j)
			if first >= n.LineStart(j+1) {
				continue // a line of no name (a NodeLine made by hand)
			}
			if ord < 0 || ord >= total || startOf[ord] != 0 {
				return nil, false
			}
			startOf[ord] = int32(i + 1)
		}
	}
	next := make([]int, len(c.Nodes)) // per NodeLine, its next line in file order
	var segs []nameRun
	for at := 0; at < total; {
		i := int(startOf[at]) - 1
		if i < 0 {
			return nil, false
		}
		n := &c.Nodes[i]
		j := next[i]
		for j < n.Lines() && n.LineStart(j) == n.LineStart(j+1) {
			j++ // lines of no name
		}
		if j >= n.Lines() {
			return nil, false
		}
		first, ord := n.lineOrd(j)
		if ord != at {
			return nil, false
		}
		count := n.LineStart(j+1) - first
		if count <= 0 || first+count > len(n.Names) {
			return nil, false // positions a caller changed
		}
		next[i] = j + 1
		if k := len(segs) - 1; k >= 0 && segs[k].line == i && segs[k].first+segs[k].count == first {
			segs[k].count += count // the line continues the one before
		} else {
			segs = append(segs, nameRun{line: i, first: first, count: count})
		}
		at += count
	}
	for i := range c.Nodes { // every line with names was visited
		n := &c.Nodes[i]
		for j := next[i]; j < n.Lines(); j++ {
			if n.LineStart(j) < n.LineStart(j+1) {
				return nil, false
			}
		}
	}
	return segs, true
}

// NodeOrder yields every node name in the order the file defines them, as
// the index of its NodeLine in Nodes and its index in that line's Names:
// for i, k := range cfg.NodeOrder() reads cfg.Nodes[i].Names[k]. This is
// Slurm's node order (a node's index), which NodeLines, grouping the lines
// configured alike, do not keep. For a Config not made by Parse or
// ParseFile, or whose NodeLines were changed since (names added or
// removed, lines moved), it is the order of Nodes, then of each line's
// Names. Working out the order costs 4 bytes a name while it lasts.
func (c *Config) NodeOrder() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for _, s := range c.segments() {
			for k := s.first; k < s.first+s.count; k++ {
				if !yield(s.line, k) {
					return
				}
			}
		}
	}
}

// NodeNames returns every node name defined, in the order NodeOrder gives
// (the file's). The slice is the caller's; the strings are immutable.
func (c *Config) NodeNames() []string {
	all := make([]string, 0, c.NodeCount())
	for _, s := range c.segments() {
		all = append(all, c.Nodes[s.line].Names[s.first:s.first+s.count]...)
	}
	return all
}
