package auction

import (
	"cmp"
	"slices"
)

// candidate is a bid before ranking. Most jobs keep a quarter of their
// candidates (MaxBids of 4*MaxBids), so a job of a node count, whose bid
// uses every node of its stretch, has its uses laid out (spread) only
// once ranked among those kept; a job of any node count has them at once
// (its stretch is cut where its cores end).
type candidate struct {
	uses       []Use // nil until made, for a job of a node count
	cores      int   // the uses' cores in all, once made
	stretch    []int // the nodes of the stretch, ascending
	room       []int // the job's room on each node (its group's)
	level      int
	gpus       int
	contention int
}

func newCandidate(job WindowJob, stretch, room []int, level, g int, arena *useArena) candidate {
	c := candidate{stretch: stretch, room: room, level: level, gpus: g}
	if job.Nodes == 0 {
		c.uses, c.cores = spread(job, stretch, room, g, arena)
	}
	return c
}

// made is the candidate's uses, laid out now if they were not.
func (c *candidate) made(job WindowJob, arena *useArena) []Use {
	if c.uses == nil {
		c.uses, c.cores = spread(job, c.stretch, c.room, c.gpus, arena)
	}
	return c.uses
}

// size is how many nodes the bid uses: all of its stretch for a job of a
// node count.
func (c *candidate) size() int {
	if c.uses == nil {
		return len(c.stretch)
	}
	return len(c.uses)
}

// span is the candidate's nodes as first, first+1, ..., first+count-1,
// false when they are not consecutive. A run's nodes are consecutive (a
// nodeset breaks where a node is skipped) and bids are stretches of runs,
// so all are: the check only keeps the count exact if one were not.
func (c *candidate) span() (first, count int, ok bool) {
	if c.uses == nil {
		s := c.stretch // ascending
		return s[0], len(s), s[len(s)-1]-s[0] == len(s)-1
	}
	if len(c.uses) == 0 {
		return 0, 0, true // no node: nothing to count
	}
	return c.uses[0].Node, len(c.uses), consecutive(c.uses)
}

// eachNode calls f for every node the candidate uses.
func (c *candidate) eachNode(f func(int)) {
	if c.uses == nil {
		for _, n := range c.stretch {
			f(n)
		}
		return
	}
	for _, u := range c.uses {
		f(u.Node)
	}
}

// contention is, per node, how many candidate bids of the window use it,
// as prefix sums, so that a bid of consecutive nodes sums its nodes'
// counts in one step.
type contention struct {
	sum []int // sum[i]: the counts of nodes 0..i-1
}

func newContention(cands [][]candidate, n int) *contention {
	per := make([]int, n+1) // differences at spans' ends, counts elsewhere
	var direct []int
	for _, cs := range cands {
		for k := range cs {
			if first, count, ok := cs[k].span(); ok {
				per[first]++
				per[first+count]--
				continue
			}
			if direct == nil {
				direct = make([]int, n)
			}
			cs[k].eachNode(func(i int) { direct[i]++ })
		}
	}
	ct := &contention{sum: make([]int, n+1)}
	run := 0
	for i := range n {
		run += per[i]
		count := run
		if direct != nil {
			count += direct[i]
		}
		ct.sum[i+1] = ct.sum[i] + count
	}
	return ct
}

// of is the contention of the candidate: its nodes' counts summed.
func (ct *contention) of(c *candidate) int {
	if first, count, ok := c.span(); ok {
		return ct.sum[first+count] - ct.sum[first]
	}
	total := 0
	c.eachNode(func(i int) { total += ct.sum[i+1] - ct.sum[i] })
	return total
}

// rank keeps the best max candidates: lowest level, then least contended,
// then fewest nodes.
func rank(cands []candidate, ct *contention, limit int) []candidate {
	for k := range cands {
		cands[k].contention = ct.of(&cands[k])
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.level, b.level), cmp.Compare(a.contention, b.contention), cmp.Compare(a.size(), b.size()))
	})
	return cands[:min(limit, len(cands))]
}
