package auction

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node whose LP solution is whole and ties the incumbent holds nothing
// better: the search goes on (here it is the root, and the proof is
// complete). The cut lies below the incumbent by the bound's rounding
// margin (1e-9 of the bound), which at 30 jobs of priority about 1,000 is
// more than the proof's tolerance, so testing the whole solution against
// the cut alone took every such tie for disagreeing numerics and stopped
// the whole search: on 30-job windows the exact search then fell back to
// the combinatorial one and ended jobs short of the optimum.
func TestLPSearchGoesOnPastAWholeTie(t *testing.T) {
	p := &Problem{Nodes: []Node{{CPUs: 29}}, Alpha: 1.0 / 3}
	for j := range 30 {
		p.Jobs = append(p.Jobs, Job{ID: int64(j + 1), Priority: int64(1000 + j),
			Bids: []Bid{{Uses: []Use{{Node: 0, Cores: 1}}, Cost: 1 + float64(j)/7919}}}) // no granularity: the proof gap is the tolerance
	}
	require.NoError(t, p.Validate())
	m := buildModel(p)
	opts := Options{}.withDefaults(len(p.Jobs), false)
	s := newSolver(context.Background(), m, opts)
	comps := m.components()
	require.Len(t, comps, 1)
	bounds := make([]float64, 1)
	s.initial(comps, bounds, opts.PricingSteps)
	before := s.valueOf(comps[0])
	complete, root := s.lpSearch(comps[0], 1000, 1_000_000, nil, 0)
	assert.True(t, complete, "the whole root ties the incumbent: nothing better exists")
	assert.InDelta(t, before, root, 1e-6)
	assert.Equal(t, before, s.valueOf(comps[0]))
}
