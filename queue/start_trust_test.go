package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// A start trusts the selection it just made instead of having Allocate
// check it again; with the full checks turned back on, random EASY
// replays start the same jobs on the same nodes.
func TestStartTrustingTheSelectionDecidesAsFullChecks(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 23))
	rounds, steps := 20, 200
	if testing.Short() {
		rounds, steps = 4, 120
	}
	starts := 0
	for k := range rounds {
		tw, conf := randomEASYTwins(t, r)
		tw.whole.fullAllocChecks = true // whole: Allocate checks every start
		tw.replay(r, steps, 3, fmt.Sprintf("seed %d round %d (%q)", seed, k, conf))
		require.NoError(t, tw.whole.Cluster().CheckInvariants())
		require.NoError(t, tw.incr.Cluster().CheckInvariants())
		starts += tw.starts
	}
	require.Positive(t, starts)
	t.Logf("%d starts", starts)
}
