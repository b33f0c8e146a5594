package auction

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRootCutsReport (AUCTION_CUTREPORT=1) prints each window's root LP
// before and after the cover cuts, the share of the gap to the optimum
// they close, the cuts and the time taken.
func TestRootCutsReport(t *testing.T) {
	if os.Getenv("AUCTION_CUTREPORT") == "" {
		t.Skip("set AUCTION_CUTREPORT=1 to print the root cuts' table")
	}
	ws := map[string]*Problem{}
	if dir := sampleDir(); dir != "" {
		for _, n := range []string{"aucs_J50_B10_s101", "aucs_J50_B10_s102", "aucs_J100_B15_s101", "aucs_J100_B15_s102"} {
			ws[n] = loadSample(t, dir, n)
		}
	}
	for seed := uint64(1); seed <= 2; seed++ {
		p, err := GenerateWindow(WindowSpec{Jobs: 100, Bids: 15, Seed: seed})
		require.NoError(t, err)
		ws[fmt.Sprintf("gen_J100_B15_s%d", seed)] = p
	}
	for _, name := range []string{"aucs_J50_B10_s101", "aucs_J50_B10_s102", "aucs_J100_B15_s101", "aucs_J100_B15_s102", "gen_J100_B15_s1", "gen_J100_B15_s2"} {
		p := ws[name]
		if p == nil {
			continue
		}
		for _, rounds := range []int{1, 2, 4, 8} {
			m := buildModel(p)
			start := time.Now()
			before, after, n := m.rootCuts(context.Background(), m.components(), rounds, math.MaxInt64)
			t.Logf("%-20s rounds %d root %.3f -> %.3f (%d cuts, %v)", name, rounds, before, after, n, time.Since(start).Round(time.Millisecond))
		}
	}
}
