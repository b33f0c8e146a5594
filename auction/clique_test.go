package auction

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValueStep(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values []float64
		want   float64
	}{
		{"integers", []float64{3, 1976, 12}, 1},
		{"halves", []float64{1.5, 2}, 0.5},
		{"thirds of 1/1024", []float64{1974.44921875, 1867.9990234375, 1849.6656901041667}, 1.0 / 3072},
		{"none", []float64{0.1}, 0},
		{"irrational", []float64{1, 3.141592653589793}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, valueStep(tt.values), 1e-15)
		})
	}
}

// Every clique the model adds is a set of pairwise conflicting bids: a
// valid row. Checked against the capacities directly.
func TestConflictCliquesAreCliques(t *testing.T) {
	p, err := GenerateWindow(WindowSpec{Jobs: 30, Bids: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := buildModel(p)
	cliques := m.conflictCliques()
	assert.NotEmpty(t, cliques)
	conflict := func(a, b int32) bool {
		if m.jobOf[a] == m.jobOf[b] {
			return true
		}
		use := map[int]Use{}
		for _, u := range p.Jobs[m.jobs[m.jobOf[a]].orig].Bids[m.origBid[a]].Uses {
			use[u.Node] = u
		}
		for _, u := range p.Jobs[m.jobs[m.jobOf[b]].orig].Bids[m.origBid[b]].Uses {
			if o, ok := use[u.Node]; ok && (o.Cores+u.Cores > p.Nodes[u.Node].CPUs || o.GPUs+u.GPUs > p.Nodes[u.Node].GPUs) {
				return true
			}
		}
		return false
	}
	for _, c := range cliques {
		for i, a := range c {
			for _, b := range c[i+1:] {
				assert.True(t, conflict(a, b), "bids %d and %d do not conflict", a, b)
			}
		}
	}
}
