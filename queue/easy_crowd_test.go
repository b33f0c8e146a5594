package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// Refusing a job by the counts before a counted plan's nodes are chosen
// decides as choosing them first would: twin schedulers, one that always
// chooses first, start the same jobs on the same nodes over random plain
// workloads (FCFS and SJF, shared and whole nodes, depth limits, passes
// that go on from the last one).
func TestEASYCrowdedOutDecidesAsChosenNodes(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 23))
	rounds, steps := 40, 300
	if testing.Short() {
		rounds, steps = 8, 150
	}
	crowded, starts := 0, 0
	for k := range rounds {
		tw, conf := randomEASYTwins(t, r)
		tw.ew.noCrowd = true
		tw.replay(r, steps, 4, fmt.Sprintf("seed %d round %d (%q)", seed, k, conf))
		require.Zero(t, tw.ew.crowded)
		crowded, starts = crowded+tw.ei.crowded, starts+tw.starts
	}
	require.Positive(t, crowded, "no job was refused before the head's nodes were chosen")
	t.Logf("%d jobs refused before the nodes were chosen; %d starts", crowded, starts)
}
