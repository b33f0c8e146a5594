package queue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// plainConf is a random plain cluster: 1-90 nodes of the same CPUs under
// select/linear or cons_res, one partition over all of them.
func plainConf(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteString("SelectType=select/cons_res\nSelectTypeParameters=CR_CPU\n")
	}
	fmt.Fprintf(&b, "NodeName=n[1-%d] CPUs=%d\n", 1+r.IntN(90), []int{1, 1, 2, 8}[r.IntN(4)])
	b.WriteString("PartitionName=batch Nodes=ALL Default=YES\n")
	return b.String()
}

type plainJob struct {
	submit, run, limit time.Duration
	spec               Spec
}

func plainWorkload(r *rand.Rand, nodes, cpn int) []plainJob {
	jobs := make([]plainJob, 40+r.IntN(160))
	at := time.Duration(0)
	for i := range jobs {
		at += time.Duration(r.IntN(4)) * time.Minute
		limit := time.Duration(1+r.IntN(12)) * 10 * time.Minute
		run := min(limit, time.Duration(1+r.IntN(int(limit/time.Minute)+20))*time.Minute)
		req := selectnodes.Request{CPUs: 1 + r.IntN(max(1, nodes*cpn/2))}
		if r.IntN(3) == 0 {
			req = selectnodes.Request{MinNodes: 1 + r.IntN(max(1, nodes/2))}
		}
		jobs[i] = plainJob{submit: at, run: run, limit: limit,
			spec: Spec{Name: "j", User: "u", Request: req, TimeLimit: limit}}
	}
	return jobs
}

// replayEASY runs jobs through EASY, a pass after each batch of events
// (ends before submissions), and returns every start as "time job nodes".
func replayEASY(t *testing.T, conf string, jobs []plainJob, counted bool) (starts []string, deferred, chosen int) {
	s := New(cluster(t, conf))
	e := NewEASY(s)
	e.noCounted = !counted
	ends := map[time.Duration][]JobID{}
	ids := map[JobID]int{}
	next := 0
	for now := time.Duration(0); next < len(jobs) || len(ends) > 0; {
		for _, id := range ends[now] {
			require.NoError(t, s.Finish(id, Outcome{Kind: Completed}, t0.Add(now)))
		}
		delete(ends, now)
		for ; next < len(jobs) && jobs[next].submit == now; next++ {
			id := submit(t, s, jobs[next].spec, t0.Add(now))
			ids[id] = next
		}
		before, wasPending := e.plan.head, e.plan.lazy.pending
		for _, st := range e.Backfill(t0.Add(now)) {
			starts = append(starts, fmt.Sprintf("%v %d %s", now, st.Job, st.Nodes))
			end := now + jobs[ids[st.Job]].run
			ends[end] = append(ends[end], st.Job)
		}
		if e.plan.lazy.pending {
			deferred++
		}
		if wasPending && e.plan.head == before && e.plan.nodes != nil {
			chosen++
		}
		// the next event
		nxt := time.Duration(-1)
		if next < len(jobs) {
			nxt = jobs[next].submit
		}
		for at := range ends {
			if nxt < 0 || at < nxt {
				nxt = at
			}
		}
		if nxt < 0 {
			break
		}
		now = nxt
	}
	require.NoError(t, s.Cluster().CheckInvariants())
	return starts, deferred, chosen
}

// The counted head plan decides exactly as the plan by probes: every
// start's time, job and nodes, over random plain clusters and workloads.
func TestEASYCountedPlanDecidesAsProbes(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	rounds := 120
	if testing.Short() {
		rounds = 40
	}
	deferred, chosen := 0, 0
	for k := range rounds {
		conf := plainConf(r)
		c := cluster(t, conf)
		jobs := plainWorkload(r, c.NodeCount(), c.MostNodeCPUs())
		want, _, _ := replayEASY(t, conf, jobs, false)
		got, d, ch := replayEASY(t, conf, jobs, true)
		deferred, chosen = deferred+d, chosen+ch
		if !slices.Equal(want, got) {
			for i := range min(len(want), len(got)) {
				require.Equal(t, want[i], got[i], "seed %d round %d (%q): start %d differs", seed, k, conf, i)
			}
			require.Equal(t, len(want), len(got), "seed %d round %d", seed, k)
		}
	}
	require.Positive(t, deferred, "no plan deferred its nodes")
	require.Positive(t, chosen, "no deferred plan chose its nodes in a later pass")
	t.Logf("%d passes ended with the nodes deferred, %d plans chose them in a later pass", deferred, chosen)
}

// appendSetBits lists the set bits of a bitmap in order, as NextSet would.
func TestAppendSetBitsIsNextSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for range 50 {
		n := uint(r.IntN(300))
		b := bitset.New(n)
		for i := range n {
			if r.IntN(3) == 0 {
				b.Set(i)
			}
		}
		var want []int
		for i, ok := b.NextSet(0); ok; i, ok = b.NextSet(i + 1) {
			want = append(want, int(i))
		}
		got := appendSetBits([]int{-1}, b.Words())
		require.Equal(t, append([]int{-1}, want...), got, "%d bits", n)
	}
}

// excludeUntil withholds the nodes busy past the threshold and the idle
// ones past the first idleAllowed, as a node-by-node walk does.
func TestExcludeUntilIsNodeByNode(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	for range 200 {
		n := r.IntN(300)
		until := make([]time.Duration, n)
		for i := range until {
			until[i] = time.Duration(r.IntN(10)) * time.Minute
			if r.IntN(3) == 0 {
				until[i] = idleNode
			}
		}
		threshold, allowed := time.Duration(r.IntN(10))*time.Minute, r.IntN(12)-2
		want := bitset.New(uint(n))
		left := allowed
		for i, t := range until {
			switch {
			case t == idleNode && left == 0:
				want.Set(uint(i))
			case t == idleNode && left > 0:
				left--
			case t != idleNode && t > threshold:
				want.Set(uint(i))
			}
		}
		got := bitset.New(uint(n))
		got.SetAll() // cleared first
		excludeUntil(got.Words(), until, threshold, allowed)
		require.True(t, want.Equal(got), "seed %d: %d nodes, threshold %v, %d idle allowed: %v, want %v", seed, n, threshold, allowed, got, want)
	}
}
