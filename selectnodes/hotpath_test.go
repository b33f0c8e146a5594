package selectnodes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// Allocate and Release of a placement a selection returned cost the job's
// nodes and allocate nothing in the steady state, with and
// without GRES, on both selectors.
func TestAllocateReleaseAllocatesNothing(t *testing.T) {
	for _, sel := range []Selector{Linear{}, ConsRes{}} {
		for _, gres := range []bool{false, true} {
			c := gresCluster(t, 2000, sel, gres)
			for _, size := range []int{1, 64} {
				req := &Request{MinNodes: size}
				if gres {
					req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}
				}
				p, err := c.SelectNodes(req, RunNow)
				require.NoError(t, err)
				allocs := testing.AllocsPerRun(50, func() {
					if err := c.Allocate(7, p, t0, t0.Add(time.Hour)); err != nil {
						t.Fatal(err)
					}
					if err := c.Release(7); err != nil {
						t.Fatal(err)
					}
				})
				require.Zero(t, allocs, "%T gres=%v size=%d", sel, gres, size)
				require.NoError(t, c.CheckInvariants())
			}
		}
	}
}

// gresCluster is n nodes of 8 CPUs, with 2 GPUs each when gres is set.
func gresCluster(t testing.TB, n int, sel Selector, gres bool) *Cluster {
	nodes := make([]Node, n)
	all := make([]string, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("g%d", i), CPUs: 8, RealMemory: 1000, Weight: 1}
		if gres {
			nodes[i].GRES = []GRES{{Name: "gpu", Count: 2}}
		}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: all, Default: true}}, WithSelector(sel))
	require.NoError(t, err)
	return c
}

// A placement that does not come complete from a selection (read back
// from storage, or changed by hand) is still completed in a copy, and one
// that contradicts itself is refused or repaired as before.
func TestAllocateCompletesForeignPlacements(t *testing.T) {
	c := gresCluster(t, 8, ConsRes{}, true)
	stored := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 2, CPUs: 4, GRES: []GRESAlloc{{Name: "gpu", Count: 1}}}, {Node: 5, CPUs: 8}}}
	require.NoError(t, c.Allocate(1, stored, t0, t0.Add(time.Hour)))
	got, _, _, ok := c.Allocation(1)
	require.True(t, ok)
	require.NotSame(t, stored, got)
	require.Equal(t, []string{"g2", "g5"}, got.Names)
	require.Equal(t, []uint{2, 5}, setBits(got))
	require.Nil(t, stored.Names, "the caller's placement is not written")
	require.Equal(t, []int{4, 0}, []int{c.FreeCPUs(2), c.FreeCPUs(5)})
	require.Equal(t, int64(1), c.FreeGRES(2, "gpu", ""))
	require.NoError(t, c.CheckInvariants())

	p, err := c.SelectNodes(&Request{MinNodes: 2, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}}, RunNow)
	require.NoError(t, err)
	wrong := *p
	wrong.Names = []string{"g7", "g6"} // names that do not match the nodes: rebuilt from Alloc
	require.NoError(t, c.Allocate(2, &wrong, t0, t0.Add(time.Hour)))
	got, _, _, _ = c.Allocation(2)
	require.NotSame(t, &wrong, got)
	require.Equal(t, p.Names, got.Names)

	p, err = c.SelectNodes(&Request{MinNodes: 1}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(3, p, t0, t0.Add(time.Hour)))
	got, _, _, _ = c.Allocation(3)
	require.Same(t, p, got, "a complete placement is kept, not copied")
	require.NoError(t, c.CheckInvariants())

	twice := *p
	twice.Alloc = append(append([]NodeAlloc(nil), p.Alloc...), p.Alloc...)
	twice.Names = append(append([]string(nil), p.Names...), p.Names...)
	require.ErrorContains(t, c.Allocate(4, &twice, t0, t0.Add(time.Hour)), "appears twice")
}

func setBits(p *Placement) []uint {
	var out []uint
	for i := range p.All() {
		out = append(out, uint(i))
	}
	return out
}

// The scratch a cluster lends its selections changes no decision: a run
// of selections and allocations on one cluster (its scratch reused from
// call to call) chooses what a fresh snapshot (a fresh scratch) chooses
// for every request, on random clusters with and without a topology.
func TestScratchReuseChangesNoDecision(t *testing.T) {
	for _, sel := range []Selector{Linear{}, ConsRes{}} {
		r := rand.New(rand.NewPCG(11, 5))
		for iter := range iterations(200, 1000) {
			c, nodes, _ := randomCluster(r, sel)
			var id JobID
			for k := 0; k < 8; k++ {
				req := randomRequest(r, nodes)
				for _, mode := range []Mode{RunNow, TestOnly, WillRun} {
					want, wantErr := c.Snapshot().SelectNodes(req, mode)
					got, err := c.SelectNodes(req, mode)
					require.Equal(t, wantErr == nil, err == nil, "%T iter %d: %v / %v", sel, iter, wantErr, err)
					require.Equal(t, want, got, "%T iter %d mode %v", sel, iter, mode)
					pw, okw := c.Snapshot().c.ProbeNodes(req, mode)
					pg, okg := c.ProbeNodes(req, mode)
					require.Equal(t, okw, okg)
					require.Equal(t, pw, pg)
				}
				if p, err := c.SelectNodes(req, RunNow); err == nil {
					id++
					require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Duration(1+r.IntN(4))*time.Hour)))
				}
			}
			require.NoError(t, c.CheckInvariants())
		}
	}
}

// Two goroutines selecting on one snapshot never share working memory
// (run under -race).
func TestSnapshotSelectionsConcurrently(t *testing.T) {
	c := benchCluster(t, 4096, ConsRes{})
	halfLoad(t, c)
	s := c.Snapshot()
	want, err := s.SelectNodes(&Request{MinNodes: 100}, RunNow)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				p, err := s.SelectNodes(&Request{MinNodes: 100}, RunNow)
				if err != nil || !p.NodeSet().Equal(want.NodeSet()) {
					errs <- fmt.Errorf("got %v, %v", p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// WillRun agrees with releasing the running jobs one end time at a time
// and selecting after each (the definition), on random loaded clusters:
// the same start, the same nodes, and for a job that never fits the same
// error class as a RunNow selection has.
func TestWillRunAgreesWithReleasingInOrder(t *testing.T) {
	for _, sel := range []Selector{Linear{}, ConsRes{}} {
		r := rand.New(rand.NewPCG(23, 1))
		later := 0 // cases that start after some jobs end: the search ran
		for iter := range iterations(150, 800) {
			c, nodes, _ := randomCluster(r, sel)
			var id JobID
			for k := 0; k < 6; k++ {
				req := randomRequest(r, nodes)
				if p, err := c.SelectNodes(req, RunNow); err == nil {
					id++
					require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Duration(1+r.IntN(4))*time.Hour)))
				}
			}
			for k := 0; k < 4; k++ {
				req := randomRequest(r, nodes)
				got, err := c.SelectNodes(req, WillRun)
				want, wantErr := willRunByReleasing(c, req)
				desc := fmt.Sprintf("%T iter %d req %+v", sel, iter, *req)
				require.Equal(t, wantErr == nil, err == nil, "%s: %v / %v", desc, wantErr, err)
				if err != nil {
					require.Equal(t, ClassName(classOf(wantErr)), ClassName(classOf(err)), "%s: %v / %v", desc, wantErr, err)
					continue
				}
				require.Equal(t, want.Start, got.Start, desc)
				require.Equal(t, want.Names, got.Names, desc)
				require.Equal(t, want.Alloc, got.Alloc, desc)
				if !got.Immediate {
					later++
				}
			}
		}
		require.Greater(t, later, 20, "%T: too few cases wait for jobs to end", sel)
	}
}

// willRunByReleasing is WillRun by its definition, on a snapshot.
func willRunByReleasing(c *Cluster, req *Request) (*Placement, error) {
	s := c.Snapshot()
	p, err := s.SelectNodes(req, RunNow)
	if err == nil || !errors.Is(err, ErrBusy) {
		return p, err
	}
	ids := s.Jobs()
	slices.SortStableFunc(ids, func(a, b JobID) int {
		ea, _ := s.End(a)
		eb, _ := s.End(b)
		return ea.Compare(eb)
	})
	for k, id := range ids {
		end, _ := s.End(id)
		if err := s.Release(id); err != nil {
			return nil, err
		}
		if k+1 < len(ids) {
			if next, _ := s.End(ids[k+1]); next.Equal(end) {
				continue // jobs ending together free their nodes together
			}
		}
		if p, err := s.SelectNodes(req, RunNow); err == nil {
			p.Start, p.Immediate = end, false
			return p, nil
		}
	}
	return nil, err
}

func classOf(err error) error {
	for _, class := range []error{ErrNodeConfig, ErrPartConfig, ErrBusy, ErrHeld, ErrInvalidRequest} {
		if errors.Is(err, class) {
			return class
		}
	}
	return err
}

// idleOnly is ConsRes with a Filter of its own that keeps only idle
// nodes; it embeds ConsRes, whose unexported filtering methods it so has.
type idleOnly struct{ ConsRes }

func (idleOnly) Filter(v View, job *Job, cand, dst *bitset.BitSet) {
	cand.Copy(dst)
	dst.InPlaceIntersection(v.Idle())
}

// A selector embedding a built-in one keeps its own Filter: the pipeline
// filters set by set only for the built-in types themselves.
func TestEmbeddedSelectorKeepsItsFilter(t *testing.T) {
	c := uniform(t, 4, 8, WithSelector(idleOnly{}))
	p, err := c.SelectNodes(&Request{MinNodes: 1}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour))) // one CPU of n0
	p, err = c.SelectNodes(&Request{MinNodes: 4}, RunNow)
	require.ErrorIs(t, err, ErrBusy, "ConsRes alone would share n0, the embedding selector does not")
	require.Nil(t, p)
	p, err = c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	require.NoError(t, err)
	require.Equal(t, []string{"n1", "n2", "n3"}, p.Names)
}

// A job that can never run is explained the same in WillRun as in RunNow:
// the same class, reason and steps (WillRun classifies lazily only when
// nothing is being explained).
func TestWillRunExplainsLikeRunNow(t *testing.T) {
	c := uniform(t, 4, 8)
	occupy(t, c, 1, time.Hour, "n0", "n1")
	require.NoError(t, c.SetNodeState("n3", NodeDrain))
	for _, req := range []*Request{
		{MinNodes: 5},                                 // more nodes than the partition has
		{MinNodes: 2, Required: []string{"n3"}},       // a drained node
		{MinNodes: 1, MinCPUsPerNode: 9},              // bigger than any node
		{MinNodes: 3, Required: []string{"n2", "n3"}}, // drained, and busy
	} {
		_, errNow := c.SelectNodes(req, RunNow)
		_, errLater := c.SelectNodes(req, WillRun)
		var now, later *Error
		require.ErrorAs(t, errNow, &now)
		require.ErrorAs(t, errLater, &later)
		require.NotErrorIs(t, errNow, ErrBusy, "%+v", *req)
		require.Equal(t, now.Class, later.Class, "%+v", *req)
		require.Equal(t, now.Reason, later.Reason, "%+v", *req)
		require.Equal(t, now.Explanation.Steps, later.Explanation.Steps, "%+v", *req)
		require.Equal(t, WillRun, later.Explanation.Mode)
	}
}

// The largest-first fallback takes the same nodes, in the same order, as
// taking from every run sorted by length (stable), however many runs it
// leaves unsorted (longestFor), with and without a scratch.
func TestLargestRunsTakesTheSortedPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 18))
	cpuOf := func(i int) int { return 1 + i%5 }
	for iter := range 2000 {
		var runs []run
		at := 0
		for range r.IntN(60) {
			at += 1 + r.IntN(4)
			l := 1 + r.IntN([]int{2, 8, 40}[r.IntN(3)])
			runs = append(runs, run{at, at + l})
			at += l
		}
		needNodes, needCPU, room := r.IntN(80), r.IntN(3)*r.IntN(100)-50, r.IntN(90)
		want := slices.Clone(runs)
		slices.SortStableFunc(want, func(a, b run) int { return b.len() - a.len() })
		var ref []int
		nn, nc, rm := needNodes, needCPU, room
		for _, x := range want {
			for i := x.start; i < x.end && rm > 0 && (nn > 0 || nc > 0); i++ {
				ref = append(ref, i)
				nn, nc, rm = nn-1, nc-cpuOf(i), rm-1
			}
		}
		pk := picker{cpuOf: cpuOf}
		if iter%2 == 0 {
			pk.sc = new(scratch)
		}
		got := pk.largestRuns([]int{}, slices.Clone(runs), needNodes, needCPU, room)
		require.Equal(t, fmt.Sprint(ref), fmt.Sprint(got), "iter %d runs %v need %d nodes %d CPUs room %d", iter, runs, needNodes, needCPU, room)
	}
}

// eachRun finds the runs runsOf finds (NextSet/NextClear), on random
// bitmaps of runs short and long, within random bounds, and stops when
// asked.
func TestEachRunAgreesWithRunsOf(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 64))
	for iter := range 3000 {
		n := 1 + r.IntN(400)
		b := bitset.New(uint(n))
		for i := 0; i < n; {
			l := 1 + r.IntN([]int{2, 20, 130}[r.IntN(3)])
			if r.IntN(2) == 0 {
				for j := i; j < min(i+l, n); j++ {
					b.Set(uint(j))
				}
			}
			i += l
		}
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n-lo+1)
		var want []run
		for _, x := range runsOf(b, lo, hi) {
			want = append(want, x)
		}
		var got []run
		stop := r.IntN(5)
		eachRun(b.Words(), lo, hi, func(s, e int) bool {
			got = append(got, run{s, e})
			return stop == 0 || len(got) < stop
		})
		if stop > 0 && len(want) > stop {
			want = want[:stop]
		}
		require.Equal(t, want, got, "iter %d bits %v [%d, %d)", iter, b, lo, hi)
	}
}
