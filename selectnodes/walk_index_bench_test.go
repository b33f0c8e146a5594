package selectnodes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/btree"
)

// BenchmarkTryConsResWalk is a RunNow Try on a cluster of one node
// configuration under ConsRes whose jobs share nodes (COARE's 24 nodes of
// 72 CPUs, then the same shape scaled up), three quarters of its CPUs
// taken by jobs of 1-100 CPUs: path=walk is the ConsRes walk, path=pipeline
// the same selection with the walk off, its floor beside it. The busy
// request asks for more CPUs than are free and fails with ErrBusy on both.
func BenchmarkTryConsResWalk(b *testing.B) {
	for _, n := range []int{24, 1000, 10000} {
		nodes := make([]Node, n)
		all := make([]string, n)
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%05d", i), CPUs: 72, RealMemory: 192000}
			all[i] = nodes[i].Name
		}
		c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, WithSelector(ConsRes{}))
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 8))
		for id, used := JobID(1), 0; used < n*72*3/4; id++ {
			p, err := c.SelectNodes(&Request{CPUs: 1 + r.IntN(100)}, RunNow)
			if err != nil {
				break
			}
			if err := c.Allocate(id, p, t0, t0.Add(time.Hour)); err != nil {
				b.Fatal(err)
			}
			for _, a := range p.Alloc {
				used += a.CPUs
			}
		}
		for _, rq := range []struct {
			name string
			req  Request
			busy bool
		}{{"request=1cpu", Request{CPUs: 1}, false}, {"request=72cpus", Request{CPUs: 72}, false},
			{"request=allcpus/busy", Request{CPUs: n * 72}, true}} {
			for _, path := range []string{"walk", "pipeline"} {
				b.Run(fmt.Sprintf("nodes=%d/load=3quarters/%s/path=%s", n, rq.name, path), func(b *testing.B) {
					c.noConsResWalk = path == "pipeline"
					defer func() { c.noConsResWalk = false }()
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

// BenchmarkEndIndexStartEnd is one job's start and end in the running
// jobs' end index (an insert and a delete) with n jobs running: index=
// small is the index as the cluster keeps it (a sorted slice up to 256
// keys, a B-tree past them), index=btree the B-tree alone, its floor.
func BenchmarkEndIndexStartEnd(b *testing.B) {
	for _, n := range []int{100, 250, 1000} {
		r := rand.New(rand.NewPCG(9, 10))
		keys := make([]endKey, n+1)
		for i := range keys {
			keys[i] = newEndKey(t0.Add(time.Duration(r.IntN(1e6))*time.Second), JobID(i+1), nil)
		}
		b.Run(fmt.Sprintf("running=%d/index=small", n), func(b *testing.B) {
			var x endIndex
			for _, k := range keys[:n] {
				x.ReplaceOrInsert(k)
			}
			for i := 0; b.Loop(); i++ {
				k := keys[i%len(keys)]
				x.Delete(k) // the one not in the index first: a start, then an end
				x.ReplaceOrInsert(k)
			}
		})
		b.Run(fmt.Sprintf("running=%d/index=btree", n), func(b *testing.B) {
			x := btree.NewG(16, endLess)
			for _, k := range keys[:n] {
				x.ReplaceOrInsert(k)
			}
			for i := 0; b.Loop(); i++ {
				k := keys[i%len(keys)]
				x.Delete(k)
				x.ReplaceOrInsert(k)
			}
		})
	}
}
