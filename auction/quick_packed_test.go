package auction

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The packed free words tell a fit as the cores and GPUs apart do: at
// the bounds (none free, exactly enough, one short of cores or of GPUs,
// MaxPerNode), and a bid that does not fit leaves the free words as
// they were, its miss on the use that did not fit.
func TestQuickPackedFits(t *testing.T) {
	for _, tc := range []struct {
		freeC, freeG, useC, useG int
		fits                     bool
	}{
		{0, 0, 0, 0, true},
		{0, 0, 1, 0, false},
		{0, 0, 0, 1, false},
		{4, 2, 4, 2, true},
		{4, 2, 5, 2, false},
		{4, 2, 4, 3, false},
		{4, 2, 3, 1, true},
		{MaxPerNode, MaxPerNode, MaxPerNode, MaxPerNode, true},
		{MaxPerNode - 1, MaxPerNode, MaxPerNode, 0, false},
		{MaxPerNode, 0, 0, 1, false},
		{0, MaxPerNode, 1, MaxPerNode, false},
	} {
		q := &quickSearch{free: []uint64{packAmount(8, 8), packAmount(tc.freeC, tc.freeG)}}
		b := &Bid{Uses: []Use{{Node: 0, Cores: 1, GPUs: 1}, {Node: 1, Cores: tc.useC, GPUs: tc.useG}}}
		assert.Equal(t, tc.fits, q.fits(b), "%+v", tc)
		var miss int32
		assert.Equal(t, tc.fits, q.tryTake(b, &miss), "%+v", tc)
		if tc.fits {
			assert.Equal(t, []uint64{packAmount(7, 7), packAmount(tc.freeC-tc.useC, tc.freeG-tc.useG)}, q.free, "%+v", tc)
			q.take(b, -1)
		} else {
			assert.Equal(t, int32(1), miss, "%+v", tc)
		}
		assert.Equal(t, []uint64{packAmount(8, 8), packAmount(tc.freeC, tc.freeG)}, q.free, "%+v", tc)
	}
}
