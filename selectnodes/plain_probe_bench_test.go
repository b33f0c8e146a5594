package selectnodes

import (
	"errors"
	"fmt"
	"testing"
)

// BenchmarkTryPlain is a RunNow Try of a plain request on a cluster of one
// kind of node under Linear (a replay's KTH-SP2 or HPC2N machine, scaled
// up), half loaded: path=walk is the plain walk, path=pipeline the same
// selection with the walk switched off, its floor beside it. The busy
// request asks for every node, as a blocked queue head does on each pass:
// it fails with ErrBusy on both paths.
func BenchmarkTryPlain(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		nodes := make([]Node, n)
		all := make([]string, n)
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%06d", i), CPUs: 64, RealMemory: 256000}
			all[i] = nodes[i].Name
		}
		c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, WithSelector(Linear{}))
		if err != nil {
			b.Fatal(err)
		}
		halfLoad(b, c)
		for _, rq := range []struct {
			name string
			req  Request
			busy bool
		}{{"request=1node", Request{MinNodes: 1}, false}, {"request=64nodes", Request{MinNodes: 64}, false},
			{"request=allnodes/busy", Request{MinNodes: n}, true}} {
			for _, path := range []string{"walk", "pipeline"} {
				b.Run(fmt.Sprintf("nodes=%d/load=half/%s/path=%s", n, rq.name, path), func(b *testing.B) {
					c.noPlainWalk = path == "pipeline"
					defer func() { c.noPlainWalk = false }()
					b.ReportAllocs()
					for b.Loop() {
						if _, err := c.Try(&rq.req, RunNow); (err != nil) != rq.busy || (rq.busy && !errors.Is(err, ErrBusy)) {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
