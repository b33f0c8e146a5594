package selectnodes

import (
	"fmt"
	"testing"
)

// BenchmarkPlaceExact validates an exact layout of 64 nodes x 16 CPUs (an
// auction bid) on an idle cluster, on the live cluster and on a snapshot,
// as a planner does for every winning bid.
func BenchmarkPlaceExact(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		c := benchCluster(b, n, ConsRes{})
		uses := make([]NodeUse, 64)
		for k := range uses {
			uses[k] = NodeUse{Node: k * (n / 64), CPUs: 16}
		}
		req := &Request{MinNodes: 64, CPUs: 64 * 16}
		snap := c.Snapshot()
		for _, tc := range []struct {
			name  string
			place func() (*Placement, error)
		}{
			{"cluster", func() (*Placement, error) { return c.PlaceExact(req, uses) }},
			{"snapshot", func() (*Placement, error) { return snap.PlaceExact(req, uses) }},
		} {
			b.Run(fmt.Sprintf("nodes=%d/layout=64x16cpus/on=%s", n, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tc.place(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
