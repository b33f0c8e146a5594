package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// freeOfEveryLimit is ConsRes.freeOf with every per-node limit applied,
// whether or not the job asks it: the rule freeOf's shortcut for jobs
// without those limits must agree with.
func freeOfEveryLimit(v View, job *Job, i, cpus int) int {
	if job.Exclusive {
		return cpus
	}
	capacity := cpus
	if job.Shared {
		capacity = satMul(cpus, job.MaxShare)
	}
	free := min(capacity-v.u.cpus[i], cpus, memCPUs(v, job, i))
	if left := v.capLeft(job, i); left >= 0 {
		free = min(free, left)
	}
	return v.c.layoutUnits(job, i, free)
}

// A job asking no memory per CPU, no task layout and no partition cap per
// node gets, on every node under random loads, the free CPUs the full rule
// gives; the jobs that ask any of them take the full rule.
func TestFreeCPUsShortcutIsTheFullRule(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 5))
	shortcuts := 0
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
			case 2:
				req.MaxCPUsPerSocket = 1 + r.IntN(8)
			}
			job, err := c.Resolve(req)
			require.NoError(t, err)
			if r.IntN(4) == 0 {
				part := *job.Part
				part.MaxCPUsPerNode = 1 + r.IntN(16)
				job.Part = &part
			}
			if cpusOnly(job) {
				shortcuts++
			}
			v := c.live()
			for i := range nodes {
				cpus := v.c.effective(i).CPUs
				require.Equal(t, freeOfEveryLimit(v, job, i, cpus), ConsRes{}.freeOf(v, job, i, cpus),
					"seed %d iter %d step %d node %d request %+v cap %d", seed, iter, step, i, req, job.Part.MaxCPUsPerNode)
			}
		}
	}
	require.Positive(t, shortcuts, "no job took the shortcut")
}

// layoutCluster is roomCluster's mix of nodes with two sockets of two
// threads per core, so that a task layout (CPUs per socket, a task per
// randomSharing is a partition's OverSubscribe drawn from r: NO, YES or
// FORCE, with a count of 1, 2 or 4.
func randomSharing(r *rand.Rand) Sharing {
	return Sharing{Mode: []ShareMode{ShareNo, ShareYes, ShareForce}[r.IntN(3)], Count: []int{1, 2, 4}[r.IntN(3)]}
}

// core) binds.
func layoutCluster(t *testing.T, r *rand.Rand, n int, sharing Sharing, fast int) (*Cluster, []Node) {
	nodes := make([]Node, n)
	all := make([]string, n)
	for i := range nodes {
		cpus := []int{4, 8, 64}[r.IntN(3)]
		nodes[i] = Node{Name: fmt.Sprintf("l%d", i), CPUs: cpus, Sockets: 2, CoresPerSocket: cpus / 4, Threads: 2,
			RealMemory: int64(100 * (1 + r.IntN(4))), Weight: 1}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: all, Default: true, Sharing: sharing}},
		WithSelector(ConsRes{}), WithFastSchedule(fast))
	require.NoError(t, err)
	return c, nodes
}
