package auction

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoNodes: jobs 1 and 2 both want node 0's 8 cores; job 2 can also go to
// node 1 on a worse bid. Hand-checked optimum: job 1 on node 0, job 2 on
// node 1: (10 - 1) + (9 - 2) = 16.
func twoNodes() *Problem {
	return &Problem{
		Alpha: 1,
		Nodes: []Node{{CPUs: 8, GPUs: 0}, {CPUs: 8, GPUs: 2}},
		Jobs: []Job{
			{ID: 1, Priority: 10, Bids: []Bid{{Uses: []Use{{0, 8, 0}}, Cost: 1}}},
			{ID: 2, Priority: 9, Bids: []Bid{{Uses: []Use{{0, 6, 0}}, Cost: 1}, {Uses: []Use{{1, 6, 2}}, Cost: 2}}},
		},
	}
}

func TestEvaluateHandChecked(t *testing.T) {
	p := twoNodes()
	for _, tt := range []struct {
		sel  Selection
		obj  float64
		fail string
	}{
		{Selection{0, 1}, 16, ""},
		{Selection{0, -1}, 9, ""},
		{Selection{-1, 0}, 8, ""},
		{Selection{-1, -1}, 0, ""},
		{Selection{0, 0}, 0, "node 0: 14 cores over 8 free"},
		{Selection{0, 2}, 0, "bid 2 of 2"},
		{Selection{0}, 0, "1 entries for 2 jobs"},
	} {
		obj, err := p.Evaluate(tt.sel)
		if tt.fail != "" {
			require.ErrorIs(t, err, ErrInfeasible)
			assert.Contains(t, err.Error(), tt.fail)
			assert.False(t, p.Feasible(tt.sel))
			continue
		}
		require.NoError(t, err)
		assert.InDelta(t, tt.obj, obj, 1e-12, "%v", tt.sel)
	}
}

func TestSolveHandChecked(t *testing.T) {
	sol, err := Solve(t.Context(), twoNodes(), Options{})
	require.NoError(t, err)
	assert.Equal(t, Selection{0, 1}, sol.Selection)
	assert.InDelta(t, 16, sol.Objective, 1e-12)
	assert.True(t, sol.Optimal)
	assert.InDelta(t, 16, sol.Bound, 1e-9)
	assert.Zero(t, sol.Gap)

	// A GPU conflict: both want 2 of node 1's 2 GPUs; the higher priority wins.
	p := twoNodes()
	p.Jobs[0].Bids = []Bid{{Uses: []Use{{1, 1, 2}}, Cost: 1}}
	p.Jobs[1].Bids = p.Jobs[1].Bids[1:]
	sol, err = Solve(t.Context(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, Selection{0, -1}, sol.Selection)
	assert.True(t, sol.Optimal)
}

func TestCostAndAlpha(t *testing.T) {
	sys := System{Nodes: 1024, MaxLevel: 2, MaxGPUs: 3}
	assert.InDelta(t, 1+52.0/1024+0.5, Cost(sys, 52, 1, 0), 1e-15)
	assert.InDelta(t, 1+1.0/1024+0-1, Cost(sys, 1, 0, 3), 1e-15)
	assert.InDelta(t, 3.0, Cost(sys, 1024, 2, 0), 1e-15)
	assert.InDelta(t, 2.0, Cost(System{Nodes: 4}, 4, 0, 0), 1e-15, "no levels, no GPUs")
	assert.InDelta(t, 1.0, Alpha([]int64{10, 13, 19}), 1e-15)
	assert.InDelta(t, 2.0/3, Alpha([]int64{5, 5, 7}), 1e-15, "equal priorities do not count")
	assert.InDelta(t, 1.0/3, Alpha([]int64{5}), 1e-15)
	assert.InDelta(t, 1.0/3, Alpha(nil), 1e-15)
}

func TestValidateErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edit  func(p *Problem)
		want  error
		where string
	}{
		{"over capacity", func(p *Problem) { p.Jobs[0].Bids[0].Uses[0].Cores = 9 }, ErrInvalid, "jobs[0].bids[0].uses[0]: bid over node 0's capacity"},
		{"gpus over capacity", func(p *Problem) { p.Jobs[1].Bids[1].Uses[0].GPUs = 3 }, ErrInvalid, "jobs[1].bids[1].uses[0]"},
		{"empty bid", func(p *Problem) { p.Jobs[1].Bids[0].Uses = nil }, ErrInvalid, "jobs[1].bids[0].uses: empty bid"},
		{"duplicate id", func(p *Problem) { p.Jobs[1].ID = 1 }, ErrInvalid, "jobs[1].id: duplicate job ID 1 (also jobs[0])"},
		{"nan cost", func(p *Problem) { p.Jobs[0].Bids[0].Cost = math.NaN() }, ErrInvalid, "jobs[0].bids[0].cost"},
		{"inf cost", func(p *Problem) { p.Jobs[0].Bids[0].Cost = math.Inf(1) }, ErrInvalid, "cost must be finite"},
		{"unknown node", func(p *Problem) { p.Jobs[1].Bids[1].Uses[0].Node = 7 }, ErrInvalid, "unknown node 7 (2 nodes)"},
		{"node twice", func(p *Problem) { p.Jobs[0].Bids[0].Uses = append(p.Jobs[0].Bids[0].Uses, Use{0, 0, 0}) }, ErrInvalid, "used twice"},
		{"zero use", func(p *Problem) { p.Jobs[0].Bids[0].Uses[0].Cores = 0 }, ErrInvalid, "must be positive"},
		{"negative capacity", func(p *Problem) { p.Nodes[1].GPUs = -1 }, ErrInvalid, "nodes[1]"},
		{"nan alpha", func(p *Problem) { p.Alpha = math.NaN() }, ErrInvalid, "alpha"},
		{"huge priority", func(p *Problem) { p.Jobs[0].Priority = 1 << 50 }, ErrInvalid, "jobs[0].priority"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := twoNodes()
			tt.edit(p)
			err := p.Validate()
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.where)
			var e *Error
			require.True(t, errors.As(err, &e))
			_, err = Solve(t.Context(), p, Options{})
			require.Error(t, err, "Solve validates too")
		})
	}
}

func TestJSONRoundTripAndErrors(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, twoNodes()))
	back, err := ReadJSON(&buf)
	require.NoError(t, err)
	assert.Equal(t, twoNodes().Jobs, back.Jobs)
	assert.Equal(t, twoNodes().Nodes, back.Nodes)

	for _, tt := range []struct{ in, want string }{
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,5,0]],"cost":1}]}]}`, "jobs[0].bids[0].uses[0]: bid over node 0's capacity"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1]],"cost":1}]}]}`, "jobs[0].bids[0].uses[0]: a use is [node, cores, gpus], got 2 numbers"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0,0]],"cost":1}]}]}`, "jobs[0].bids[0].uses[0]: a use is [node, cores, gpus], got more than 3 numbers"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1.5,0]]}]}]}`, "jobs[0].bids[0].uses[0]"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":"x"}]}`, "jobs[0].priority"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[{"id":1,"priority":1},{"id":1,"priority":2}]}`, "duplicate job ID 1"},
		{`{"nodes":[}`, "near byte"},
		{`{"nodes":[]} {}`, "data after the problem object"},
		{`[1]`, `want "{"`},
		{``, "unexpected end of input"},
		{`{"nodes":[{"cpus":4,"gpus":0}],"jobs":[]}`, "alpha: missing"},
		{`{"alpha":1,"name":"` + strings.Repeat("x", MaxTokenBytes+1) + `"}`, "longer than"},
		{`{"alpha":1,` + strings.Repeat(" ", 3*squeezeRun) + `"nodes":[}`, fmt.Sprintf("near byte %d", 11+3*squeezeRun+9)},
	} {
		_, err := ReadJSON(strings.NewReader(tt.in))
		require.Error(t, err, tt.in)
		assert.Contains(t, err.Error(), tt.want, tt.in)
	}
}

func TestReadJSONBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"nodes":[{"cpus":1,"gpus":0}],"jobs":[{"id":1,"priority":1,"bids":[`)
	for k := 0; k <= MaxBidsPerJob; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"uses":[[0,1,0]],"cost":1}`)
	}
	b.WriteString(`]}]}`)
	_, err := ReadJSON(strings.NewReader(b.String()))
	require.ErrorIs(t, err, ErrBudget)
	assert.Contains(t, err.Error(), "jobs[0].bids: more than 10000 elements")
}

func TestSolveEdgeCases(t *testing.T) {
	sol, err := Solve(t.Context(), &Problem{}, Options{})
	require.NoError(t, err)
	assert.Empty(t, sol.Selection)
	assert.True(t, sol.Optimal)

	// Negative values are never chosen.
	p := twoNodes()
	p.Jobs[0].Priority = -5
	sol, err = Solve(t.Context(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, Selection{-1, 0}, sol.Selection)

	// A cancelled context still gives a feasible answer with a valid bound.
	w, err := GenerateWindow(WindowSpec{Jobs: 80, Bids: 10, Seed: 9})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	sol, err = Solve(ctx, w, Options{})
	require.NoError(t, err)
	assert.True(t, w.Feasible(sol.Selection))
	assert.Equal(t, "cancelled", sol.Stopped)
	assert.GreaterOrEqual(t, sol.Bound+1e-6, sol.Objective)

	// Value by cores: the bid's value is (P - alpha*C) times its cores.
	p = twoNodes()
	p.ValueByCores = true
	assert.InDelta(t, (9-2.0)*6, p.Value(1, 1), 1e-12)
	sol, err = Solve(t.Context(), p, Options{})
	require.NoError(t, err)
	assert.InDelta(t, 9*8+7*6, sol.Objective, 1e-9)
}
