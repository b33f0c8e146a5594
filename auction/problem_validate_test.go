package auction

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validate without uses (the planner's own problems) gives Validate's
// error for everything but the uses themselves, which it trusts; with
// ValueByCores it reads the bids' cores from totals.
func TestValidateWithoutUses(t *testing.T) {
	for _, tt := range []struct {
		name    string
		edit    func(p *Problem)
		trusted bool // an error in the uses, which validate(false) does not look at
	}{
		{"valid", func(p *Problem) {}, false},
		{"over capacity", func(p *Problem) { p.Jobs[0].Bids[0].Uses[0].Cores = 9 }, true},
		{"unknown node", func(p *Problem) { p.Jobs[1].Bids[1].Uses[0].Node = 7 }, true},
		{"empty bid", func(p *Problem) { p.Jobs[1].Bids[0].Uses = nil }, false},
		{"duplicate id", func(p *Problem) { p.Jobs[1].ID = 1 }, false},
		{"nan cost", func(p *Problem) { p.Jobs[0].Bids[0].Cost = math.NaN() }, false},
		{"negative level", func(p *Problem) { p.Jobs[1].Bids[1].Level = -1 }, false},
		{"negative capacity", func(p *Problem) { p.Nodes[1].GPUs = -1 }, false},
		{"huge priority", func(p *Problem) { p.Jobs[0].Priority = 1 << 50 }, false},
		{"no cores by cores", func(p *Problem) {
			p.ValueByCores = true
			p.Jobs[1].Bids[1].Uses[0].Cores = 0
			p.totals[1][1].cores = 0
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := twoNodes()
			p.totals = [][]item{{{cores: 8}}, {{cores: 6}, {cores: 6, gpus: 2}}}
			tt.edit(p)
			full, skipped := p.Validate(), p.validate(false)
			if tt.trusted {
				require.Error(t, full)
				assert.NoError(t, skipped)
				return
			}
			assert.Equal(t, full, skipped)
		})
	}
}

// A recycling arena that checks its uses makes a problem validated in
// full, and the planner hands its checkProblems to the arena of each
// pass.
func TestPlannerArenaCarriesTheCheck(t *testing.T) {
	for _, check := range []bool{false, true} {
		pl := &Planner{checkProblems: check}
		a := pl.arena()
		assert.Equal(t, check, a.checkUses)
		pl.release(a)
		assert.Equal(t, check, pl.arena().checkUses, "a recycled arena")
	}
}
