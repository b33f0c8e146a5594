package auction

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A spec whose jobs times bids passes MaxBids was generated in full
// (seconds and hundreds of megabytes at 10,000 x 10,000) before the
// window's validation refused it; it is refused up front, and the
// largest spec within the budget is still made.
func TestGenerateWindowChecksTheBidBudgetFirst(t *testing.T) {
	for _, spec := range []WindowSpec{
		{Jobs: MaxJobs, Bids: MaxBidsPerJob},
		{Jobs: MaxJobs, Bids: MaxBids/MaxJobs + 1},
		{Jobs: MaxBids/MaxBidsPerJob + 1, Bids: MaxBidsPerJob},
	} {
		_, err := GenerateWindow(spec)
		require.Error(t, err, "%+v", spec)
		assert.True(t, errors.Is(err, ErrBudget), "%+v: %v", spec, err)
		assert.Contains(t, err.Error(), "spec")
	}
	if testing.Short() {
		return
	}
	p, err := GenerateWindow(WindowSpec{Jobs: MaxBids / 200, Bids: 200, Seed: 1})
	require.NoError(t, err)
	assert.Len(t, p.Jobs, MaxBids/200)
}
