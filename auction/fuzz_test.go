package auction

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzReadJSON: any input gives a problem or an error, never a panic; a
// problem it accepts is valid, writes back and reads back the same, and
// solves to a feasible selection within its bound.
func FuzzReadJSON(f *testing.F) {
	f.Add(`{"alpha":1,"nodes":[{"cpus":8,"gpus":0},{"cpus":8,"gpus":2}],"jobs":[{"id":1,"priority":10,"bids":[{"uses":[[0,8,0]],"cost":1}]},{"id":2,"priority":9,"bids":[{"uses":[[0,6,0]],"cost":1},{"uses":[[1,6,2]],"cost":2,"level":1}]}]}`)
	f.Add(`{"nodes":[{"cpus":1,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":null}]}`)
	f.Add(`{"nodes":[],"jobs":[]}`)
	f.Add(`{"nodes":[{"cpus":4}],"jobs":[{"id":1,"bids":[{"uses":[[0,1,0,1]]}]}]}`)
	f.Add(`{"alpha":1e308,"nodes":[{"cpus":2,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cost":-1e308,"level":0}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid problem: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, p); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(&buf)
		if err != nil {
			t.Fatalf("cannot read back what it wrote: %v\n%s", err, buf.String())
		}
		if len(back.Jobs) != len(p.Jobs) || len(back.Nodes) != len(p.Nodes) {
			t.Fatal("round trip changed the problem")
		}
		if len(p.Jobs) > 12 {
			return
		}
		sol, err := Solve(t.Context(), p, Options{MaxNodes: 10_000, Rounds: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !p.Feasible(sol.Selection) || sol.Bound+1e-6 < sol.Objective ||
			math.IsInf(sol.Objective, 0) || math.IsInf(sol.Bound, 0) {
			t.Fatalf("bad solution %+v", sol)
		}
	})
}
