package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sets by level find the same overfilling pairs as the uses listed
// by resource, on random problems, the paper's generated windows and
// windows whose bids lay their cores out unevenly, on the models' node
// resources and cliques (resources of capacity 1) alike.
func TestOverfillsByLevelsAsByResource(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 12))
	check := func(what string, p *Problem) {
		t.Helper()
		m := buildModel(p)
		want, got := newBitrows(len(m.value)), newBitrows(len(m.value))
		m.overfillsByResource(want)
		require.True(t, m.overfillsByLevels(got), what)
		require.Equal(t, want.bits, got.bits, what)
	}
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	for k := range rounds {
		check("random", withCopies(rng, randomProblem(rng)))
		if k%20 == 0 {
			p, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(60), Bids: 1 + rng.IntN(10), Seed: rng.Uint64(), Ranges: k%40 == 0})
			require.NoError(t, err)
			check("generated", p)
			check("uneven", unevenCopy(rng, p))
		}
	}
}

// A capacity over the cap leaves the pairs to the lists by resource.
func TestOverfillsByLevelsCap(t *testing.T) {
	p := &Problem{Alpha: 1, Nodes: []Node{{maxLevelCap + 1, 0}}, Jobs: []Job{
		{ID: 1, Priority: 2, Bids: []Bid{{Uses: []Use{{0, maxLevelCap, 0}}}}},
		{ID: 2, Priority: 3, Bids: []Bid{{Uses: []Use{{0, 2, 0}}}}},
	}}
	m := buildModel(p)
	adj := newBitrows(len(m.value))
	assert.False(t, m.overfillsByLevels(adj))
	assert.Equal(t, make([]uint64, len(adj.bits)), adj.bits, "untouched")
	assert.True(t, m.conflictGraph().has(0, 1), "the lists by resource find the pair")
}
