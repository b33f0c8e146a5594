package auction

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func cloneProblem(p *Problem) *Problem {
	q := *p
	q.Nodes = slices.Clone(p.Nodes)
	q.Jobs = slices.Clone(p.Jobs)
	for k := range q.Jobs {
		q.Jobs[k].Bids = slices.Clone(p.Jobs[k].Bids)
		for i := range q.Jobs[k].Bids {
			q.Jobs[k].Bids[i].Uses = slices.Clone(p.Jobs[k].Bids[i].Uses)
		}
	}
	return &q
}

// A problem equal to the last one solved (a copy, not the same pointer)
// is answered from the memo with Solve's answer; each change the solver
// would see is a miss, answered by Solve.
func TestSolveMemoRepeatsSolve(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	opts := ReplayOptions()
	var memo solveMemo
	for range 30 {
		p := randomProblem(rng)
		want, err := Solve(t.Context(), p, opts)
		require.NoError(t, err)
		got, err := memo.solveRemembered(t.Context(), p, opts)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		got.Selection[0] = 99 // the caller's: the memo keeps its own
		again, err := memo.solveRemembered(t.Context(), cloneProblem(p), opts)
		require.NoError(t, err)
		assert.Equal(t, want, again)
		assert.Same(t, p, memo.p, "an equal problem is answered from the memo")
		for _, change := range problemChanges(rng, p) {
			q := cloneProblem(p)
			change(q)
			assert.False(t, sameProblem(p, q))
		}
	}
}

// problemChanges are edits of p that change what Solve sees.
func problemChanges(rng *rand.Rand, p *Problem) []func(*Problem) {
	j := rng.IntN(len(p.Jobs))
	i := rng.IntN(len(p.Jobs[j].Bids))
	return []func(*Problem){
		func(q *Problem) { q.Alpha += 0.5 },
		func(q *Problem) { q.ValueByCores = !q.ValueByCores },
		func(q *Problem) { q.Nodes[rng.IntN(len(q.Nodes))].CPUs++ },
		func(q *Problem) { q.Jobs[j].Priority++ },
		func(q *Problem) { q.Jobs[j].ID += 100 },
		func(q *Problem) { q.Jobs[j].Bids[i].Cost += 1 },
		func(q *Problem) { q.Jobs[j].Bids[i].Level++ },
		func(q *Problem) { q.Jobs[j].Bids[i].Uses[0].Cores++ },
		func(q *Problem) { q.Jobs[j].Bids = q.Jobs[j].Bids[:i] },
		func(q *Problem) { q.Jobs = q.Jobs[:j] },
	}
}

// With a clock (a time limit or a deadline) Solve may stop anywhere, so
// nothing is remembered.
func TestSolveMemoNotWithAClock(t *testing.T) {
	p := randomProblem(rand.New(rand.NewPCG(1, 2)))
	var memo solveMemo
	timed := ReplayOptions()
	timed.TimeLimit = time.Minute
	_, err := memo.solveRemembered(t.Context(), p, timed)
	require.NoError(t, err)
	assert.Nil(t, memo.p)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = memo.solveRemembered(ctx, p, ReplayOptions())
	require.NoError(t, err)
	assert.Nil(t, memo.p)
}
