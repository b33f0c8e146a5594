package selectnodes

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
)

// benchCluster is n nodes in 8 config records of n/8, with rack, CPU
// generation and interconnect features, in one partition.
func benchCluster(tb testing.TB, n int, sel Selector, opts ...Option) *Cluster {
	nodes := make([]Node, n)
	all := make([]string, n)
	per := n / 8
	for i := range nodes {
		rack := i / per
		nodes[i] = Node{Name: fmt.Sprintf("n%06d", i), CPUs: 64, RealMemory: 256000, Weight: int64(1 + rack%3),
			Features: []string{"ib", fmt.Sprintf("rack%d", rack), fmt.Sprintf("gen%d", rack%2)}}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, append(opts, WithSelector(sel))...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// halfLoad fills three quarters of the nodes with jobs of 1 to 64 nodes,
// then ends a third of the jobs at random, leaving about half the cluster
// busy and its free nodes fragmented.
func halfLoad(tb testing.TB, c *Cluster) {
	r := rand.New(rand.NewPCG(1, 2))
	used := 0
	var id JobID
	for used < c.NodeCount()*3/4 {
		p, err := c.SelectNodes(&Request{MinNodes: 1 + r.IntN(64)}, RunNow)
		if err != nil {
			tb.Fatal(err)
		}
		id++
		if err := c.Allocate(id, p, t0, t0.Add(time.Duration(1+r.IntN(100))*time.Minute)); err != nil {
			tb.Fatal(err)
		}
		used += len(p.Names)
	}
	for _, j := range c.Running() {
		if r.IntN(3) == 0 {
			_ = c.Release(j)
		}
	}
}

func BenchmarkSelectNodes(b *testing.B) { benchSelectNodes(b) }

// BenchmarkSelectNodesCompat is the same grid with WithSlurmCompat: the
// rules recorded on Slurm 22.05 (compat_*.go) take their own paths.
func BenchmarkSelectNodesCompat(b *testing.B) { benchSelectNodes(b, WithSlurmCompat()) }

func benchSelectNodes(b *testing.B, opts ...Option) {
	expr, err := features.Parse("ib&(gen1|rack2)")
	if err != nil {
		b.Fatal(err)
	}
	requests := []struct {
		name string
		req  *Request
	}{
		{"request=1node", &Request{}},
		{"request=64nodes-features", &Request{MinNodes: 64, Features: expr}},
	}
	for _, n := range []int{10000, 100000} {
		for _, load := range []string{"idle", "half"} {
			for _, sel := range []struct {
				name string
				s    Selector
			}{{"linear", Linear{}}, {"consres", ConsRes{}}} {
				c := benchCluster(b, n, sel.s, opts...)
				if load == "half" {
					halfLoad(b, c)
				}
				for _, rq := range requests {
					name := fmt.Sprintf("nodes=%d/load=%s/%s/selector=%s", n, load, rq.name, sel.name)
					b.Run(name, func(b *testing.B) {
						b.ReportAllocs()
						cpu := processCPU()
						for b.Loop() {
							if _, err := c.SelectNodes(rq.req, RunNow); err != nil {
								b.Fatal(err)
							}
						}
						reportCPU(b, cpu)
					})
				}
			}
		}
	}
}

func BenchmarkWillRun(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		c := benchCluster(b, n, Linear{})
		halfLoad(b, c)
		for _, rq := range []struct {
			name string
			req  *Request
		}{
			{"request=64nodes-contiguous", &Request{MinNodes: 64, Contiguous: true}},
			{"request=75pct", &Request{MinNodes: n * 3 / 4}},
		} {
			b.Run(fmt.Sprintf("nodes=%d/load=half/jobs=%d/%s", n, len(c.jobs), rq.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.SelectNodes(rq.req, WillRun); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkAllocateRelease(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		c := benchCluster(b, n, ConsRes{})
		for _, size := range []int{64, 1} {
			p, err := c.SelectNodes(&Request{MinNodes: size}, RunNow)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("nodes=%d/job=%dnodes", n, size)
			if size == 1 {
				name = fmt.Sprintf("nodes=%d/job=1node", n)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := c.Allocate(1, p, t0, t0); err != nil {
						b.Fatal(err)
					}
					if err := c.Release(1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// reportCPU reports the process's CPU time per iteration since start
// (processCPU) as cpu-ns/op: on a shared machine wall time per operation
// moves with the neighbours by several times, CPU time far less, so
// `make bench` takes its ratios from both.
func reportCPU(b *testing.B, start int64) {
	if end := processCPU(); start >= 0 && end >= start && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkBitmapFloor is one AND plus popcount over two node bitmaps of
// the cluster's size: the least any selection over the whole cluster does.
func BenchmarkBitmapFloor(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		x, y := bitset.New(uint(n)), bitset.New(uint(n))
		for i := 0; i < n; i += 3 {
			x.Set(uint(i))
		}
		y.SetAll()
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			total := 0
			cpu := processCPU()
			for b.Loop() {
				xw, yw := x.Words(), y.Words()
				c := 0
				for k := range xw {
					c += bits.OnesCount64(xw[k] & yw[k])
				}
				total += c
			}
			reportCPU(b, cpu)
			_ = total
		})
	}
}

// countedCluster is n nodes in 100 config records of heterogeneous CPUs
// (16 to 63) and weights, each record carrying an overlapping subset of
// the features f0..f7, half the cluster busy under ConsRes.
func countedCluster(tb testing.TB, n int) *Cluster {
	nodes := make([]Node, n)
	all := make([]string, n)
	per := n / 100
	for i := range nodes {
		rec := i / per
		var fs []string
		for t := range 8 {
			if (rec*2654435761)>>(t+3)&1 == 1 {
				fs = append(fs, fmt.Sprintf("f%d", t))
			}
		}
		nodes[i] = Node{Name: fmt.Sprintf("n%06d", i), CPUs: 16 + rec*7%48, RealMemory: 1000, Weight: int64(1 + rec%4), Features: fs}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, WithSelector(ConsRes{}))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func countedExpr(tb testing.TB, terms, count int) *features.Expr {
	parts := make([]string, terms)
	for t := range parts {
		parts[t] = fmt.Sprintf("f%d*%d", t, count)
	}
	e, err := features.Parse("[" + strings.Join(parts, "&") + "]")
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkCountedTerms decides requests with counted terms on 10,000
// nodes: one that fits, one whose CPU total no choice reaches, one whose
// terms cannot all be met within its node limit (the search must prove
// it) and one that needs the nodes with the most CPUs.
func BenchmarkCountedTerms(b *testing.B) {
	const n = 10000
	c := countedCluster(b, n)
	for _, terms := range []int{1, 4, 8} {
		cases := []struct {
			name string
			req  *Request
			ok   bool
		}{
			{"fits", &Request{CPUs: 2000, Features: countedExpr(b, terms, 20)}, true},
			{"cpus-unreachable", &Request{CPUs: 10_000_000, Features: countedExpr(b, terms, 20)}, false},
			{"terms-beyond-maxnodes", &Request{MaxNodes: 29, Features: countedExpr(b, terms, 30)}, false},
			{"cpus-tight", &Request{MaxNodes: 60, CPUs: 60 * 50, Features: countedExpr(b, terms, 10)}, true},
		}
		for _, tc := range cases {
			b.Run(fmt.Sprintf("nodes=%d/terms=%d/%s", n, terms, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := c.Try(tc.req, RunNow)
					if (err == nil) != tc.ok {
						b.Fatalf("err = %v, want ok=%v", err, tc.ok)
					}
				}
			})
		}
	}
}

// BenchmarkSnapshot takes a snapshot of a loaded cluster (copying only the
// load), and tries one what-if on it and reverts it.
func BenchmarkSnapshot(b *testing.B) {
	const n, running = 100000, 10000
	c := benchCluster(b, n, ConsRes{})
	for id := range running {
		first := id * 7 % (n - 8)
		p := &Placement{Partition: "batch"}
		for k := range 1 + id%8 {
			p.Alloc = append(p.Alloc, NodeAlloc{Node: first + k, CPUs: 1 + id%4})
		}
		if err := c.Allocate(JobID(id+1), p, t0, t0.Add(time.Duration(1+id%100)*time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	name := fmt.Sprintf("nodes=%d/running=%d", n, running)
	b.Run(name+"/take", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = c.Snapshot()
		}
	})
	s := c.Snapshot()
	p, err := s.SelectNodes(&Request{MinNodes: 64}, RunNow)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(name+"/simulate-64nodes-and-revert", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			revert, err := s.Simulate(JobID(running+1), p, t0, t0.Add(time.Hour))
			if err != nil {
				b.Fatal(err)
			}
			revert()
		}
	})
}

// BenchmarkSelectAllocate is a scheduler's start: a RunNow selection, then
// its allocation, checked in full (Allocate) or trusted as the selection
// just made (AllocateSelected), then the release that undoes it; under
// path=recycled the released placement is handed back (Recycle) for the
// next selection to fill.
func BenchmarkSelectAllocate(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		c := benchCluster(b, n, ConsRes{})
		for _, size := range []int{1, 64} {
			for _, path := range []string{"checked", "trusted", "recycled"} {
				allocate := c.Allocate
				if path != "checked" {
					allocate = c.AllocateSelected
				}
				b.Run(fmt.Sprintf("nodes=%d/job=%dnodes/path=%s", n, size, path), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						p, err := c.SelectNodes(&Request{MinNodes: size}, RunNow)
						if err != nil {
							b.Fatal(err)
						}
						if err := allocate(1, p, t0, t0); err != nil {
							b.Fatal(err)
						}
						if err := c.Release(1); err != nil {
							b.Fatal(err)
						}
						if path == "recycled" && !c.Recycle(p) {
							b.Fatal("the placement was not taken back")
						}
					}
				})
			}
		}
	}
}
