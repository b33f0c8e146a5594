package queue

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Weights of +Inf, NaN or 1e300 saturate: an older job still outranks a
// younger one, instead of every priority collapsing to 1.
func TestMultifactorWeightsSaturate(t *testing.T) {
	ctx := PolicyContext{Now: at(600), ClusterNodes: 8}
	old := &Job{Submit: at(0)}
	young := &Job{Submit: at(300)}
	for _, w := range []float64{math.Inf(1), 1e300, MaxPriorityWeight, 2 * MaxPriorityWeight} {
		m := Multifactor{Age: w, MaxAge: time.Hour * 10}
		po, py := m.Priority(old, ctx), m.Priority(young, ctx)
		assert.Greater(t, po, py, "weight %g", w)
		assert.Greater(t, py, int64(1), "weight %g", w)
		assert.Equal(t, int64(MaxPriorityWeight), Multifactor{Age: w, MaxAge: time.Minute}.Priority(old, ctx), "a full factor at weight %g", w)
	}
	nan := Multifactor{Age: math.NaN(), JobSize: 1000}
	assert.Equal(t, Multifactor{JobSize: 1000}.Priority(old, ctx), nan.Priority(old, ctx), "a NaN weight counts as 0")
	all := Multifactor{Age: math.Inf(1), JobSize: math.Inf(1), Partition: math.Inf(1), Site: math.Inf(1),
		SiteFactor: func(*Job, time.Time) float64 { return 1 }}
	ctx.MaxPartitionPriority, ctx.PartitionPriority = 1, 1
	w := float64(MaxPriorityWeight)
	assert.Equal(t, int64(3*w+w/8), all.Priority(&Job{Submit: at(0)}, PolicyContext{
		Now: at(100000), ClusterNodes: 8, MaxPartitionPriority: 1, PartitionPriority: 1}))
	neg := Multifactor{Age: math.Inf(-1), JobSize: 10}
	assert.Equal(t, int64(1), neg.Priority(old, ctx), "a negative sum is the least priority")
}
