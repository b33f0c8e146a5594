package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// plainCluster makes 1-130 nodes of the same CPUs (weights, features,
// GRES and memory vary: a plain request reads none of them) under Linear
// or ConsRes, in one partition.
func plainCluster(t *testing.T, r *rand.Rand) *Cluster {
	t.Helper()
	cpus := []int{1, 2, 4, 72}[r.IntN(4)]
	nodes := make([]Node, 1+r.IntN(130))
	part := Partition{Name: "p", Default: true, Sharing: Sharing{Mode: []ShareMode{ShareNo, ShareYes, ShareForce, ShareExclusive}[r.IntN(4)]}}
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%03d", i), CPUs: cpus, RealMemory: int64(100 * (1 + r.IntN(2))), Weight: int64(r.IntN(3))}
		if r.IntN(3) == 0 {
			nodes[i].Features = []string{"a"}
		}
		if r.IntN(4) == 0 {
			nodes[i].GRES = []GRES{{Name: "gpu", Count: 2}}
		}
		part.Nodes = append(part.Nodes, nodes[i].Name)
	}
	if r.IntN(4) == 0 {
		part.MaxNodes = 1 + r.IntN(len(nodes)+2)
	}
	sel := []Selector{Linear{}, ConsRes{}}[r.IntN(2)]
	c, err := New(nodes, []Partition{part}, WithSelector(sel))
	require.NoError(t, err)
	return c
}

func plainRequestFor(r *rand.Rand, n int) Request {
	req := Request{MinNodes: r.IntN(n + 2), CPUs: r.IntN(2 * n * 4)}
	if r.IntN(3) == 0 {
		req.MaxNodes = req.MinNodes + r.IntN(4)
	}
	if r.IntN(4) == 0 {
		req.DesiredNodes = r.IntN(n + 2)
	}
	req.Share = []ShareRequest{ShareDefault, ShareOversubscribe, ShareExclusiveJob}[r.IntN(3)]
	if r.IntN(2) == 0 {
		req.TimeLimit = time.Hour
	}
	return req
}

// On a plain cluster, a plain request that fits the idle cluster fits
// with any nodes withheld exactly when CountedNeed nodes are left.
func TestCountedNeedIsTheSelectionsCount(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 7))
	checked, rounds := 0, 300
	if testing.Short() {
		rounds = 100
	}
	for range rounds {
		c := plainCluster(t, r)
		n := c.NodeCount()
		dst := bitset.New(uint(n))
		for range 20 {
			req := plainRequestFor(r, n)
			need, ok := c.CountedNeed(&req)
			if !ok || !c.ProbeInto(&req, TestOnly, dst) {
				continue
			}
			for range 12 {
				x := bitset.New(uint(n))
				left := n
				// around the boundary most of the time
				target := max(0, min(n, need-1+r.IntN(3)))
				if r.IntN(4) == 0 {
					target = r.IntN(n + 1)
				}
				for _, i := range r.Perm(n)[:n-target] {
					x.Set(uint(i))
					left--
				}
				q := req
				q.ExcludeNodes = x
				got := c.ProbeInto(&q, TestOnly, dst)
				require.Equal(t, left >= need, got, "seed %d: %d nodes of %d CPUs, %T, request %+v: %d left, need %d",
					seed, n, c.MostNodeCPUs(), c.Selector(), req, left, need)
				checked++
			}
		}
	}
	require.Greater(t, checked, 15*rounds, "too few plain cases checked")
}

// CountedNeed refuses what is not a count: mixed node sizes, nodes not
// available, node lists, per-node minimums.
func TestCountedNeedRefusesWhatIsNotACount(t *testing.T) {
	mk := func(cpus []int, states []NodeState) *Cluster {
		var nodes []Node
		part := Partition{Name: "p", Default: true}
		for i, c := range cpus {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), CPUs: c, State: states[i]})
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
		c, err := New(nodes, []Partition{part})
		require.NoError(t, err)
		return c
	}
	plain := mk([]int{4, 4, 4}, []NodeState{NodeUp, NodeUp, NodeUp})
	need, ok := plain.CountedNeed(&Request{CPUs: 9})
	require.True(t, ok)
	require.Equal(t, 3, need)
	need, ok = plain.CountedNeed(&Request{MinNodes: 2, CPUs: 1})
	require.True(t, ok)
	require.Equal(t, 2, need)
	_, ok = plain.CountedNeed(&Request{MinNodes: 3, MaxNodes: 2})
	require.False(t, ok, "min above max")
	_, ok = plain.CountedNeed(&Request{CPUs: 9, MaxNodes: 2})
	require.False(t, ok, "needs more nodes than it allows")
	for name, req := range map[string]Request{
		"per-node CPUs": {MinCPUsPerNode: 2},
		"node list":     {Required: []string{"n0"}},
		"withheld":      {ExcludeNodes: bitset.New(3)},
		"contiguous":    {Contiguous: true},
		"memory":        {MemPerCPU: 1},
		"GRES":          {GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}},
		"held":          {Held: true},
		"partition":     {Partition: "nope"},
	} {
		_, ok := plain.CountedNeed(&req)
		require.False(t, ok, name)
	}
	_, ok = mk([]int{4, 2, 4}, []NodeState{NodeUp, NodeUp, NodeUp}).CountedNeed(&Request{CPUs: 6})
	require.False(t, ok, "mixed node sizes")
	_, ok = mk([]int{4, 4, 4}, []NodeState{NodeUp, NodeDrain, NodeUp}).CountedNeed(&Request{CPUs: 6})
	require.False(t, ok, "a drained node")
	require.NotPanics(t, func() { plain.CountedNeed(nil) })
}

// The bulk reads agree with the per-node and per-job ones.
func TestBulkLoadReads(t *testing.T) {
	t.Run("reported CPUs", func(t *testing.T) {
		nodes := []Node{{Name: "a", CPUs: 4}, {Name: "b", CPUs: 4}}
		c, err := New(nodes, []Partition{{Name: "p", Nodes: []string{"a", "b"}, Default: true}}, WithFastSchedule(0))
		require.NoError(t, err)
		_, err = c.Register("b", Resources{CPUs: 8})
		require.NoError(t, err)
		p := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 1, CPUs: 3}, {Node: 0, CPUs: 1}}}
		require.NoError(t, c.Allocate(1, p, time.Unix(0, 0), time.Unix(9, 0)))
		require.Equal(t, []int{c.FreeCPUs(1), c.FreeCPUs(0)}, c.AppendFreeCPUsOn(nil, p))
		require.Equal(t, []int{5, 3}, c.AppendFreeCPUsOn(nil, p))
	})
	c := plainClusterOf(t, 5, 4)
	p, err := c.SelectNodes(&Request{MinNodes: 2}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, p, time.Unix(0, 0), time.Unix(100, 0)))
	p, err = c.SelectNodes(&Request{CPUs: 3}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(2, p, time.Unix(0, 0), time.Unix(50, 0)))
	p, err = c.SelectNodes(&Request{CPUs: 1}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(3, p, time.Unix(0, 0), time.Unix(50, 0)))
	free := c.AppendFreeCPUs([]int{-7})
	require.Len(t, free, 6)
	require.Equal(t, -7, free[0])
	for i := range 5 {
		require.Equal(t, c.FreeCPUs(i), free[i+1])
	}
	var ids []JobID
	c.DescendAllocations(func(id JobID, end time.Time, p *Placement) bool {
		q, _, e, ok := c.Allocation(id)
		require.True(t, ok)
		require.Equal(t, e, end)
		require.Equal(t, q.Hostlist(), p.Hostlist())
		ids = append(ids, id)
		return true
	})
	require.Equal(t, []JobID{1, 3, 2}, ids, "latest end first, equal ends by descending ID")
	n := 0
	c.DescendAllocations(func(JobID, time.Time, *Placement) bool { n++; return false })
	require.Equal(t, 1, n, "stops when told")

	// AppendFreeCPUsOn is FreeCPUs of a placement's nodes, in its order,
	// after what dst held
	for _, id := range c.Running() {
		q, _, _, _ := c.Allocation(id)
		got := c.AppendFreeCPUsOn([]int{-7}, q)
		want := []int{-7}
		for i := range q.All() {
			want = append(want, c.FreeCPUs(i))
		}
		require.Equal(t, want, got, "job %d", id)
	}
	require.Equal(t, []int{1}, c.AppendFreeCPUsOn([]int{1}, nil))
	require.Equal(t, []int{0}, c.AppendFreeCPUsOn(nil, &Placement{Alloc: []NodeAlloc{{Node: 99}}}), "not a node here")

	// IdleInto is Idle, into any dst: zero-value, shorter or longer
	for _, dst := range []*bitset.BitSet{{}, bitset.New(2), bitset.New(300).SetAll()} {
		c.IdleInto(dst)
		require.True(t, c.Idle().Equal(dst), "%v against %v", dst, c.Idle())
	}
	require.Panics(t, func() { c.IdleInto(nil) })
}

func plainClusterOf(t *testing.T, n, cpus int) *Cluster {
	t.Helper()
	part := Partition{Name: "p", Default: true}
	var nodes []Node
	for i := range n {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), CPUs: cpus})
		part.Nodes = append(part.Nodes, nodes[i].Name)
	}
	c, err := New(nodes, []Partition{part}, WithSelector(ConsRes{}))
	require.NoError(t, err)
	return c
}

// CountedNeed follows what nodes report under FastSchedule 0: a node
// reporting fewer CPUs makes the sizes mixed, and reporting them all
// again makes them alike; a snapshot keeps what it saw.
func TestCountedNeedFollowsRegistrations(t *testing.T) {
	nodes := []Node{{Name: "n0", CPUs: 4}, {Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}}
	part := Partition{Name: "p", Default: true, Nodes: []string{"n0", "n1", "n2"}}
	c, err := New(nodes, []Partition{part}, WithFastSchedule(2)) // a low report leaves the node up
	require.NoError(t, err)
	c0, err := New(nodes, []Partition{part}, WithFastSchedule(0))
	require.NoError(t, err)
	req := &Request{CPUs: 9}
	for _, c := range []*Cluster{c, c0} {
		need, ok := c.CountedNeed(req)
		require.True(t, ok)
		require.Equal(t, 3, need)
	}
	before := c0.Snapshot()
	_, err = c0.Register("n1", Resources{CPUs: 2})
	require.NoError(t, err)
	_, ok := c0.CountedNeed(req)
	require.False(t, ok, "n1 now offers 2 CPUs (and is down)")
	need, ok := before.c.CountedNeed(req)
	require.True(t, ok, "the snapshot saw 4 CPUs everywhere")
	require.Equal(t, 3, need)
	require.NoError(t, c0.CheckInvariants())

	// under FastSchedule 2 the configuration counts: reports change nothing
	_, err = c.Register("n1", Resources{CPUs: 2})
	require.NoError(t, err)
	need, ok = c.CountedNeed(req)
	require.True(t, ok)
	require.Equal(t, 3, need)

	// all reporting 8 under FastSchedule 0: alike again, and bigger
	c8, err := New(nodes, []Partition{part}, WithFastSchedule(0))
	require.NoError(t, err)
	for _, n := range nodes {
		_, err := c8.Register(n.Name, Resources{CPUs: 8})
		require.NoError(t, err)
	}
	need, ok = c8.CountedNeed(req)
	require.True(t, ok)
	require.Equal(t, 2, need)
	require.NoError(t, c8.CheckInvariants())
}
