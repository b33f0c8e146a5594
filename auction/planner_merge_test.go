package auction

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomFeasible builds a feasible selection of p job by job in a random
// order, each job taking a random bid (or none) when it still fits.
func randomFeasible(rng *rand.Rand, p *Problem) Selection {
	sel := make(Selection, len(p.Jobs))
	for j := range sel {
		sel[j] = -1
	}
	for _, j := range rng.Perm(len(p.Jobs)) {
		if n := len(p.Jobs[j].Bids); n > 0 && rng.IntN(4) > 0 {
			sel[j] = rng.IntN(n)
			if !p.Feasible(sel) {
				sel[j] = -1
			}
		}
	}
	return sel
}

// deepClone copies p through its exported fields, to check that merging
// leaves it alone.
func deepClone(p *Problem) *Problem {
	q := *p
	q.Nodes = append([]Node(nil), p.Nodes...)
	q.Jobs = make([]Job, len(p.Jobs))
	for j, job := range p.Jobs {
		q.Jobs[j] = job
		q.Jobs[j].Bids = make([]Bid, len(job.Bids))
		for i, b := range job.Bids {
			q.Jobs[j].Bids[i] = b
			q.Jobs[j].Bids[i].Uses = append([]Use(nil), b.Uses...)
		}
	}
	return &q
}

// On generated windows of the AUCSCHED3 paper's system (bids are
// stretches of runs, so idle nodes merge), a selection is feasible in
// the merged problem exactly when it is in the original, with the same
// objective, both ways round; the merged problem is smaller and the
// original is left as it was.
func TestMergeNodesSameSelections(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	windows := 6
	if testing.Short() {
		windows = 2
	}
	// a window with no two used nodes alike has nothing to merge (nil):
	// another is drawn, so that as many windows are compared whatever the
	// seed draws
	merged := 0
	for w := 0; merged < windows; w++ {
		require.Less(t, w, 20*windows, "too few windows with nodes to merge")
		p, err := GenerateWindow(WindowSpec{Jobs: 20 + rng.IntN(80), Bids: 1 + rng.IntN(15), Seed: rng.Uint64(), Ranges: w%2 == 1})
		require.NoError(t, err)
		before := deepClone(p)
		q := mergeNodes(p)
		if q == nil {
			assert.Equal(t, before, p, "the original is not changed")
			continue
		}
		merged++
		require.NoError(t, q.Validate())
		assert.Equal(t, before, p, "the original is not changed")
		assert.Less(t, countUses(q), countUses(p), "window %d", w)
		for range 200 {
			for _, sel := range []Selection{randomFeasible(rng, p), randomFeasible(rng, q)} {
				vp, errP := p.Evaluate(sel)
				vq, errQ := q.Evaluate(sel)
				require.Equal(t, errP == nil, errQ == nil, "window %d, selection %v: %v / %v", w, sel, errP, errQ)
				assert.InDelta(t, vp, vq, 1e-9)
			}
		}
	}
}

func countUses(p *Problem) int {
	n := 0
	for _, j := range p.Jobs {
		for _, b := range j.Bids {
			n += len(b.Uses)
		}
	}
	return n
}

// Small random windows with nodes copied (a copy has the same capacity
// and the same uses, or a capacity or a use one off): the merged problem
// has the same optimum as the original by brute force, and merges only
// the true copies.
func TestMergeNodesSameOptimum(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 8))
	merged := 0
	for range 300 {
		p := withCopies(rng, randomProblem(rng))
		q := mergeNodes(p)
		if q == nil {
			continue
		}
		merged++
		require.NoError(t, q.Validate())
		want, _ := bruteForce(p)
		got, sel := bruteForce(q)
		assert.InDelta(t, want, got, 1e-9)
		v, err := p.Evaluate(sel)
		require.NoError(t, err, "the merged problem's optimum is feasible in the original")
		assert.InDelta(t, want, v, 1e-9)
	}
	assert.Greater(t, merged, 100, "most windows have a copy to merge")
}

// withCopies appends to p a copy of each of some of its nodes: used by
// the same bids alike, with the same capacity or, for some, one core
// more (a different row, which must not merge).
func withCopies(rng *rand.Rand, p *Problem) *Problem {
	for n := range len(p.Nodes) {
		if rng.IntN(2) == 0 {
			continue
		}
		c := len(p.Nodes)
		nd := p.Nodes[n]
		if rng.IntN(3) == 0 {
			nd.CPUs++
		}
		p.Nodes = append(p.Nodes, nd)
		for j := range p.Jobs {
			for i := range p.Jobs[j].Bids {
				b := &p.Jobs[j].Bids[i]
				for _, u := range b.Uses {
					if u.Node == n {
						b.Uses = append(b.Uses, Use{Node: c, Cores: u.Cores, GPUs: u.GPUs})
						break
					}
				}
			}
		}
	}
	return p
}

// Nodes that differ in capacity, in the bids that use them or in what a
// bid takes stay apart; nodes used alike merge into the first of them.
func TestMergeNodesClasses(t *testing.T) {
	p := &Problem{Alpha: 1.0 / 3, Nodes: []Node{{4, 1}, {4, 1}, {4, 1}, {5, 1}, {4, 1}, {4, 1}}, Jobs: []Job{
		{ID: 1, Priority: 3, Bids: []Bid{{Uses: []Use{{0, 2, 0}, {1, 2, 0}, {2, 2, 0}, {3, 2, 0}}, Cost: 0.5}}},
		{ID: 2, Priority: 2, Bids: []Bid{
			{Uses: []Use{{0, 1, 0}, {1, 1, 0}, {2, 2, 0}}, Cost: 0.25},
			{Uses: []Use{{4, 3, 1}, {5, 3, 1}}, Cost: 0.25},
		}},
	}}
	q := mergeNodes(p)
	require.NotNil(t, q)
	// classes: {0,1} (used alike by both jobs), {2} (job 2 takes 2), {3}
	// (5 cores), {4,5}
	assert.Equal(t, []Node{{4, 1}, {4, 1}, {5, 1}, {4, 1}}, q.Nodes)
	assert.Equal(t, []Use{{0, 2, 0}, {1, 2, 0}, {2, 2, 0}}, q.Jobs[0].Bids[0].Uses)
	assert.Equal(t, []Use{{0, 1, 0}, {1, 2, 0}}, q.Jobs[1].Bids[0].Uses)
	assert.Equal(t, []Use{{3, 3, 1}}, q.Jobs[1].Bids[1].Uses)
	assert.Equal(t, p.Alpha, q.Alpha)
	assert.True(t, reflect.DeepEqual([]float64{0.5, 0.25, 0.25}, []float64{q.Jobs[0].Bids[0].Cost, q.Jobs[1].Bids[0].Cost, q.Jobs[1].Bids[1].Cost}))

	p.ValueByCores = true
	assert.Nil(t, mergeNodes(p), "a bid's value by cores sums its uses")
	assert.Nil(t, mergeNodes(&Problem{Nodes: []Node{{4, 0}, {5, 0}}, Jobs: []Job{{ID: 1, Priority: 1,
		Bids: []Bid{{Uses: []Use{{0, 1, 0}, {1, 1, 0}}}}}}}), "nothing to merge")
	assert.Nil(t, mergeNodes(&Problem{}))
}

// Should two nodes of different uses share a hash, the check against the
// class's first node splits them: here nodes 1 and 3 are put in node 0's
// class by hand, node 1 rightly, node 3 (used by another bid) wrongly.
func TestMergeNodesSplitsCollisions(t *testing.T) {
	p := &Problem{Alpha: 1, Nodes: []Node{{4, 0}, {4, 0}, {4, 0}, {4, 0}}, Jobs: []Job{
		{ID: 1, Priority: 2, Bids: []Bid{{Uses: []Use{{0, 1, 0}, {1, 1, 0}, {2, 1, 0}}}}},
		{ID: 2, Priority: 3, Bids: []Bid{{Uses: []Use{{2, 2, 0}, {3, 1, 0}}}}},
	}}
	class, reps := []int32{0, 0, 1, 0}, []int{0, 2}
	splitMismatches(p, class, &reps)
	assert.Equal(t, []int32{0, 0, 1, 2}, class)
	assert.Equal(t, []int{0, 2, 3}, reps)
}
