package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// ConsRes's load filter keeps, with its one-loop check for jobs whose room
// is CPUs and memory alone, exactly the nodes hasRoom keeps node by node:
// under random loads and registrations (FastSchedule 0, 1 and 2), with
// memory counted or not, for requests that take the loop and for those
// that must not (memory per CPU, task layouts, partition caps, --mem=0,
// GRES, sharing).
func TestDropBusyOnCPUsIsHasRoom(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	loops, general := 0, 0
	for iter := range iterations(8, 40) {
		sharing := randomSharing(r)
		var c *Cluster
		var nodes []Node
		if iter%2 == 0 {
			c, nodes = roomCluster(t, r, 70+r.IntN(200), ConsRes{}, sharing, r.IntN(3))
		} else {
			c, nodes = alikeCluster(t, r, 70+r.IntN(200), sharing, r.IntN(3))
		}
		c.memConsumable = r.IntN(2) == 0
		for step := range 80 {
			randomLoadStep(r, c, nodes, JobID(step+1))
			i := r.IntN(len(nodes))
			req := &Request{MinCPUsPerNode: r.IntN(9), MinMemoryPerNode: int64(r.IntN(3) * 50), Share: ShareRequest(r.IntN(3))}
			if r.IntN(2) == 0 { // right at one node's free CPUs or memory
				req.MinCPUsPerNode = max(c.FreeCPUs(i)+r.IntN(2), 0)
				req.MinMemoryPerNode = max(c.FreeMemory(i)+int64(r.IntN(2)), 0)
			}
			switch r.IntN(8) {
			case 0:
				req.MemPerCPU = int64(1 + r.IntN(60))
			case 1:
				req.WholeMemory, req.MinMemoryPerNode = true, 0
			case 2:
				req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}
			}
			job, err := c.Resolve(req)
			require.NoError(t, err)
			if r.IntN(6) == 0 {
				part := *job.Part
				part.MaxCPUsPerNode = 1 + r.IntN(16)
				job.Part = &part
			}
			v := c.live()
			if v.roomOnCPUs(job) {
				loops++
			} else {
				general++
			}
			all := bitset.New(uint(len(nodes))).Complement()
			got := bitset.New(uint(len(nodes)))
			ConsRes{}.Filter(v, job, all, got)
			require.Equal(t, nodeByNode(v, ConsRes{}, job).String(), got.String(),
				"seed %d iter %d step %d request %+v cap %d", seed, iter, step, req, job.Part.MaxCPUsPerNode)
		}
	}
	require.Positive(t, loops, "no job took the loop")
	require.Positive(t, general, "every job took the loop")
}

// alikeCluster is n nodes of one configuration (one record) under one
// partition of the given sharing.
func alikeCluster(t *testing.T, r *rand.Rand, n int, sharing Sharing, fast int) (*Cluster, []Node) {
	nodes := make([]Node, n)
	all := make([]string, n)
	cpus, mem := []int{2, 8, 72}[r.IntN(3)], int64(100*(1+r.IntN(4)))
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("a%d", i), CPUs: cpus, RealMemory: mem, Weight: 1}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: all, Default: true, Sharing: sharing}},
		WithSelector(ConsRes{}), WithFastSchedule(fast))
	require.NoError(t, err)
	require.Len(t, c.records, 1)
	return c, nodes
}

// Where freeIsCPUsLeft says so, cpusLeft and the scratch's function give
// every node's free CPUs as ConsRes.free does, under random loads and
// registrations; one scratch serving two jobs in turn answers for the
// job of the latest call, and a copy of the scratch answers for its own.
func TestCPUsLeftIsFree(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 12))
	taken := 0
	sc := new(scratch)
	for iter := range iterations(6, 30) {
		sharing := randomSharing(r)
		c, nodes := layoutCluster(t, r, 70+r.IntN(100), sharing, r.IntN(3))
		for step := range 60 {
			randomLoadStep(r, c, nodes, JobID(step+1))
			req := &Request{MinCPUsPerNode: r.IntN(4), Share: ShareRequest(r.IntN(3))}
			switch r.IntN(5) {
			case 0:
				req.MemPerCPU = int64(1 + r.IntN(60))
			case 1:
				req.CoreTasks = true
			}
			job, err := c.Resolve(req)
			require.NoError(t, err)
			v := c.live()
			v.sc = sc
			if !freeIsCPUsLeft(v, job) {
				continue
			}
			taken++
			other := *job
			other.Shared, other.MaxShare = !job.Shared, 1+r.IntN(3)
			_ = sc.cpusLeftOf(v, &other) // an earlier call's job
			at := sc.cpusLeftOf(v, job)
			if r.IntN(2) == 0 { // a scratch copied elsewhere binds its own
				moved := *sc
				at = moved.cpusLeftOf(v, job)
				_ = sc.cpusLeftOf(v, &other) // the original serves another call
				sc = &moved
			}
			for i := range nodes {
				want := ConsRes{}.free(v, job, i)
				require.Equal(t, want, cpusLeft(v, job, i), "seed %d iter %d step %d node %d", seed, iter, step, i)
				require.Equal(t, want, at(i), "seed %d iter %d step %d node %d", seed, iter, step, i)
			}
		}
	}
	require.Positive(t, taken, "no job took cpusLeft")
}
