package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// A model built in memory an earlier model left (its lists of another
// size and content) is the model built afresh, a merged problem whose
// uses an earlier one left is the one merged afresh, and a full solve in
// recycled memory selects the same, on random windows one after another through one
// modelMem, as a planner's replay does.
func TestModelInRecycledMemIsTheFreshModel(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 41))
	mem := &modelMem{merged: useArena{recycle: true}}
	trials := 12
	if testing.Short() {
		trials = 5
	}
	for trial := range trials {
		p, err := GenerateWindow(WindowSpec{Jobs: 5 + rng.IntN(40), Bids: 1 + rng.IntN(8), Seed: rng.Uint64(), Ranges: trial%2 == 1})
		require.NoError(t, err)
		if q := mergeNodesIn(p, &mem.merged); q != nil {
			require.Equal(t, mergeNodes(p), q, "trial %d: merged in recycled uses", trial)
			if trial%3 == 2 {
				p = q
			}
		}
		got := buildModelIn(p, mem)
		got.mem = nil // the fresh model's is nil
		require.Equal(t, buildModel(p), got, "trial %d", trial)
		opts := Options{Seed: uint64(trial), Rounds: 20}
		fresh := solveModel(t.Context(), p, opts, nil, math.Inf(1), nil)
		recycled := solveModel(t.Context(), p, opts, nil, math.Inf(1), mem)
		require.Equal(t, fresh.Selection, recycled.Selection, "trial %d", trial)
	}
}
