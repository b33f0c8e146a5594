package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// AllocateSelected leaves the cluster as Allocate does: twin random
// clusters get the same selections, one allocated with the full checks
// and one trusted, with random releases between; every node's load, the
// invariants and each next selection must agree.
func TestAllocateSelectedMatchesAllocate(t *testing.T) {
	seed := testseed.Draw(t)
	rounds, steps := 40, 60
	if testing.Short() {
		rounds = 10
	}
	for round := range rounds {
		sel := []Selector{Linear{}, ConsRes{}}[round%2]
		full, nodes, _ := randomCluster(rand.New(rand.NewPCG(seed, uint64(round))), sel)
		trusted, _, _ := randomCluster(rand.New(rand.NewPCG(seed, uint64(round))), sel)
		r := rand.New(rand.NewPCG(seed, 1000+uint64(round)))
		var running []JobID
		for step := range steps {
			where := fmt.Sprintf("seed %d round %d step %d", seed, round, step)
			if len(running) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(running))
				require.NoError(t, full.Release(running[k]), where)
				require.NoError(t, trusted.Release(running[k]), where)
				running = append(running[:k], running[k+1:]...)
				continue
			}
			req := randomRequest(r, nodes)
			p1, err1 := full.Try(req, RunNow)
			p2, err2 := trusted.Try(req, RunNow)
			require.Equal(t, err1 == nil, err2 == nil, where)
			if err1 != nil {
				continue
			}
			require.Equal(t, p1.Names, p2.Names, where)
			id := JobID(step + 1)
			require.NoError(t, full.Allocate(id, p1, t0, t0.Add(time.Hour)), where)
			require.NoError(t, trusted.AllocateSelected(id, p2, t0, t0.Add(time.Hour)), where)
			running = append(running, id)
			require.NoError(t, trusted.CheckInvariants(), where)
			for i := range nodes {
				require.Equal(t, full.FreeCPUs(i), trusted.FreeCPUs(i), "%s node %d", where, i)
				require.Equal(t, full.FreeMemory(i), trusted.FreeMemory(i), "%s node %d", where, i)
				require.Equal(t, full.FreeGRES(i, "gpu", ""), trusted.FreeGRES(i, "gpu", ""), "%s node %d", where, i)
			}
		}
	}
}

// Only the last RunNow selection on the unchanged cluster is trusted:
// every other placement gets Allocate's checks.
func TestAllocateSelectedChecksEveryOtherPlacement(t *testing.T) {
	t.Run("not the last selection", func(t *testing.T) {
		c := uniform(t, 2, 4)
		p, err := c.SelectNodes(&Request{CPUs: 4}, RunNow)
		require.NoError(t, err)
		_, err = c.SelectNodes(&Request{CPUs: 2}, RunNow)
		require.NoError(t, err)
		p.Alloc[0].CPUs = 5 // more than the node has: Allocate refuses it
		require.Error(t, c.AllocateSelected(1, p, t0, t0.Add(time.Hour)))
		require.Empty(t, c.Running())
	})
	t.Run("the last selection, modified since", func(t *testing.T) {
		for name, modify := range map[string]func(p *Placement){
			"more CPUs on a node": func(p *Placement) { p.Alloc[0].CPUs = 5 },
			"another node":        func(p *Placement) { p.Alloc[0].Node = 7 },
			"more memory":         func(p *Placement) { p.Alloc[0].Memory = 1 << 40 },
		} {
			c := uniform(t, 2, 4)
			p, err := c.SelectNodes(&Request{CPUs: 4}, RunNow)
			require.NoError(t, err)
			modify(p)
			require.Error(t, c.AllocateSelected(1, p, t0, t0.Add(time.Hour)), name)
			require.Empty(t, c.Running(), name)
			require.NoError(t, c.CheckInvariants(), name)
		}
	})
	t.Run("the cluster changed since", func(t *testing.T) {
		c := uniform(t, 2, 4)
		p, err := c.SelectNodes(&Request{CPUs: 8}, RunNow)
		require.NoError(t, err)
		occupy(t, c, 1, time.Hour, "n0")
		require.Error(t, c.AllocateSelected(2, p, t0, t0.Add(time.Hour)), "n0 is taken")
	})
	t.Run("a snapshot's selection", func(t *testing.T) {
		c := uniform(t, 2, 4)
		s := c.Snapshot()
		p, err := s.SelectNodes(&Request{CPUs: 8}, RunNow)
		require.NoError(t, err)
		occupy(t, c, 1, time.Hour, "n0")
		_, err = c.SelectNodes(&Request{CPUs: 4}, RunNow) // the cluster's own last selection
		require.NoError(t, err)
		require.Error(t, c.AllocateSelected(2, p, t0, t0.Add(time.Hour)), "n0 is taken")
	})
	t.Run("a WillRun selection", func(t *testing.T) {
		c := uniform(t, 2, 4)
		occupy(t, c, 1, time.Hour, "n0", "n1")
		p, err := c.SelectNodes(&Request{CPUs: 8}, WillRun)
		require.NoError(t, err)
		require.Error(t, c.AllocateSelected(2, p, t0, t0.Add(time.Hour)), "every node is taken")
	})
	t.Run("a job already running", func(t *testing.T) {
		c := uniform(t, 2, 4)
		occupy(t, c, 1, time.Hour, "n0")
		p, err := c.SelectNodes(&Request{CPUs: 4}, RunNow)
		require.NoError(t, err)
		require.Error(t, c.AllocateSelected(1, p, t0, t0.Add(time.Hour)))
		require.NoError(t, c.AllocateSelected(2, p, t0, t0.Add(time.Hour)))
		require.NoError(t, c.CheckInvariants())
	})
}

// The fingerprint tells apart every modification a hurried caller may
// make to a selected placement: one field of one node moved by a small
// amount, two nodes swapped, a node's CPUs moved to another, a node
// dropped, a GRES count changed. Random placements; the seed is logged.
func TestPlacementPrintTellsModificationsApart(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for range 2000 {
		p := &Placement{Partition: "batch", TotalCPUs: 0}
		n := 2 + rng.IntN(20)
		for k := range n {
			a := NodeAlloc{Node: k*3 + rng.IntN(3), CPUs: 1 + rng.IntN(64), Memory: int64(rng.IntN(1 << 20))}
			if rng.IntN(4) == 0 {
				a.GRES = []GRESAlloc{{Name: "gpu", Count: int64(1 + rng.IntN(8))}}
			}
			p.Alloc = append(p.Alloc, a)
			p.TotalCPUs += a.CPUs
		}
		before := placementPrint(p)
		i, j := rng.IntN(n), rng.IntN(n-1)
		if j >= i {
			j++
		}
		d := 1 + rng.IntN(3)
		for name, modify := range map[string]func(q *Placement){
			"node":      func(q *Placement) { q.Alloc[i].Node += d },
			"cpus":      func(q *Placement) { q.Alloc[i].CPUs += d },
			"memory":    func(q *Placement) { q.Alloc[i].Memory -= int64(d) },
			"total":     func(q *Placement) { q.TotalCPUs += d },
			"exclusive": func(q *Placement) { q.Exclusive = true },
			"swap":      func(q *Placement) { q.Alloc[i], q.Alloc[j] = q.Alloc[j], q.Alloc[i] },
			"move cpus": func(q *Placement) { q.Alloc[i].CPUs += d; q.Alloc[j].CPUs -= d },
			"drop":      func(q *Placement) { q.Alloc = q.Alloc[:n-1] },
			"gres": func(q *Placement) {
				q.Alloc[i].GRES = []GRESAlloc{{Name: "gpu", Count: int64(9 + d)}}
			},
		} {
			q := &Placement{Partition: p.Partition, TotalCPUs: p.TotalCPUs, Alloc: slices.Clone(p.Alloc)}
			modify(q)
			require.NotEqual(t, before, placementPrint(q), "%s (i=%d j=%d d=%d)", name, i, j, d)
		}
	}
}
