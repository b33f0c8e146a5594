package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// roomCluster is n nodes of mixed CPUs, memory and GPUs (so words mix
// sizes), a last word only partly used, under one partition of the given
// sharing.
func roomCluster(t *testing.T, r *rand.Rand, n int, sel Selector, sharing Sharing, fast int) (*Cluster, []Node) {
	nodes := make([]Node, n)
	all := make([]string, n)
	var cpus int
	var mem int64
	for i := range nodes {
		if i%64 == 0 || r.IntN(16) == 0 { // words mostly of one size, where bounds are tight
			cpus, mem = []int{4, 8, 64}[r.IntN(3)], int64(100*(1+r.IntN(4)))
		}
		nodes[i] = Node{Name: fmt.Sprintf("r%d", i), CPUs: cpus, RealMemory: mem, Weight: 1}
		if r.IntN(4) == 0 {
			nodes[i].GRES = []GRES{{Name: "gpu", Count: 2}}
		}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: all, Default: true, Sharing: sharing}},
		WithSelector(sel), WithFastSchedule(fast))
	require.NoError(t, err)
	return c, nodes
}

// randomLoadStep allocates a made-up placement on a few nodes (refused
// when it does not fit), releases a job, or registers a node with fewer
// resources than configured.
func randomLoadStep(r *rand.Rand, c *Cluster, nodes []Node, id JobID) {
	switch r.IntN(6) {
	case 0, 1, 2:
		p := &Placement{Partition: "p", Exclusive: r.IntN(8) == 0}
		first := r.IntN(len(nodes))
		for k := range 1 + r.IntN(5) {
			i := first + k*(1+r.IntN(40))
			if i >= len(nodes) {
				break
			}
			a := NodeAlloc{Node: i, CPUs: r.IntN(nodes[i].CPUs + 1), Memory: int64(r.IntN(int(nodes[i].RealMemory) + 1))}
			if len(nodes[i].GRES) > 0 && r.IntN(2) == 0 {
				a.GRES = []GRESAlloc{{Name: "gpu", Count: int64(1 + r.IntN(2))}}
			}
			p.Alloc = append(p.Alloc, a)
		}
		_ = c.Allocate(id, p, t0, t0.Add(time.Hour))
	case 3, 4:
		if ids := c.Running(); len(ids) > 0 {
			_ = c.Release(ids[r.IntN(len(ids))])
		}
	case 5:
		i := r.IntN(len(nodes))
		_, _ = c.Register(nodes[i].Name, Resources{CPUs: 1 + r.IntN(nodes[i].CPUs), RealMemory: int64(r.IntN(int(nodes[i].RealMemory) + 1))})
	}
}

// The load filters that pass whole words by their bounds (room.go) keep
// exactly the nodes the node-by-node check keeps, under random loads,
// releases and registrations, for random per-node needs; the bounds
// stay exact (CheckInvariants).
func TestWordBoundsFilterLikeNodeByNode(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 3))
	for iter := range iterations(12, 60) {
		sel := []Selector{Linear{}, ConsRes{}}[iter%2]
		sharing := Sharing{Mode: []ShareMode{ShareNo, ShareYes, ShareForce}[r.IntN(3)], Count: []int{1, 1, 2, 0}[r.IntN(4)]}
		c, nodes := roomCluster(t, r, 130+r.IntN(200), sel, sharing, r.IntN(3))
		for step := range 120 {
			randomLoadStep(r, c, nodes, JobID(step+1))
			require.NoError(t, c.CheckInvariants(), "iter %d step %d", iter, step)
			req := &Request{MinCPUsPerNode: r.IntN(8), MinMemoryPerNode: int64(r.IntN(3) * 50), Share: ShareRequest(r.IntN(3))}
			switch i, w := r.IntN(len(nodes)), r.IntN(len(c.caps)); r.IntN(3) {
			// right at some node's free CPUs or memory, or at a word's
			// bound, where a bound off by one keeps or drops wrong nodes
			case 0:
				req.MinCPUsPerNode = max(c.FreeCPUs(i)+r.IntN(2), 0)
				req.MinMemoryPerNode = max(c.FreeMemory(i)+int64(r.IntN(2)), 0)
			case 1:
				req.MinCPUsPerNode = max(c.caps[w].cpus-c.use.high[w].cpus+r.IntN(2), 0)
				req.MinMemoryPerNode = max(c.caps[w].mem-c.use.high[w].mem+int64(r.IntN(2)), 0)
			}
			if r.IntN(3) == 0 {
				req.MemPerCPU = int64(1 + r.IntN(60))
			}
			if r.IntN(4) == 0 {
				req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}
			}
			job, err := c.Resolve(req)
			require.NoError(t, err)
			v := c.live()
			all := bitset.New(uint(len(nodes))).Complement()
			got := bitset.New(uint(len(nodes)))
			sel.Filter(v, job, all, got)
			require.Equal(t, nodeByNode(v, sel, job).String(), got.String(), "iter %d step %d %+v", iter, step, req)
		}
	}
}

// nodeByNode is the load filter without word bounds: the selector's mask,
// less every busy node its per-node check refuses.
func nodeByNode(v View, sel Selector, job *Job) *bitset.BitSet {
	out := bitset.New(uint(len(v.c.nodes)))
	for i := range v.c.nodes {
		busy := !v.u.idle.Test(uint(i))
		var keep bool
		switch s := sel.(type) {
		case ConsRes:
			keep = s.mask(v, job).Test(uint(i)) && (job.Exclusive || !busy || s.hasRoom(v, job, i))
		case Linear:
			keep = s.mask(v, job).Test(uint(i)) && (!job.Shared || !busy || (int(v.u.jobs[i]) < job.MaxShare && v.gresFits(i, job)))
		}
		out.SetTo(uint(i), keep)
	}
	return out
}
