package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactCluster: n0-n3 have 8 CPUs, 1000 MB, gpu:v100:2 and feature a;
// n4-n5 have 16 CPUs, 2000 MB, feature b. Partition p holds all, q only
// n0-n1; ConsRes.
func exactCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	var nodes []Node
	for i := range 6 {
		n := Node{Name: names("n", i)[0], CPUs: 8, RealMemory: 1000, Weight: 1, Features: []string{"a"},
			GRES: []GRES{{Name: "gpu", Type: "v100", Count: 2}}}
		if i >= 4 {
			n = Node{Name: n.Name, CPUs: 16, RealMemory: 2000, Weight: 2, Features: []string{"b"}}
		}
		nodes = append(nodes, n)
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: span("n", 0, 5), Default: true},
		{Name: "q", Nodes: span("n", 0, 1)}}, append([]Option{WithSelector(ConsRes{})}, opts...)...)
	require.NoError(t, err)
	return c
}

func gpu(n int64) []GRES { return []GRES{{Name: "gpu", Type: "v100", Count: n}} }

func TestPlaceExactAcceptsTheExactLayout(t *testing.T) {
	c := exactCluster(t)
	req := &Request{MinNodes: 2, CPUs: 10, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}}
	p, err := c.PlaceExact(req, []NodeUse{{Node: 2, CPUs: 7, Memory: 300, GRES: gpu(2)}, {Node: 0, CPUs: 3, GRES: gpu(1)}})
	require.NoError(t, err)
	assert.Equal(t, []string{"n0", "n2"}, p.Names)
	assert.Equal(t, 10, p.TotalCPUs)
	assert.Equal(t, "p", p.Partition)
	assert.Equal(t, int64(2), p.Weight)
	require.Len(t, p.Alloc, 2)
	assert.Equal(t, 3, p.Alloc[0].CPUs)
	assert.Equal(t, int64(300), p.Alloc[1].Memory)
	assert.Equal(t, []GRESAlloc{{Name: "gpu", Type: "v100", Count: 1, key: 0}}, p.Alloc[0].GRES)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	assert.Equal(t, 5, c.FreeCPUs(0))
	assert.Equal(t, int64(0), c.FreeGRES(2, "gpu", ""))
	assert.Equal(t, int64(700), c.FreeMemory(2))
	require.NoError(t, c.CheckInvariants())
}

func TestPlaceExactRefusals(t *testing.T) {
	a := mustExpr(t, "[a*1&b*1]")
	alt := mustExpr(t, "[a|b]")
	g := []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}
	cases := []struct {
		name  string
		req   Request
		uses  []NodeUse
		class error
		why   string
	}{
		{"no nodes", Request{}, nil, ErrInvalidRequest, "names no node"},
		{"index", Request{}, []NodeUse{{Node: 6, CPUs: 1}}, ErrInvalidRequest, "out of range"},
		{"twice", Request{MinNodes: 2}, []NodeUse{{Node: 1, CPUs: 1}, {Node: 1, CPUs: 1}}, ErrInvalidRequest, "n1 appears twice"},
		{"negative", Request{}, []NodeUse{{Node: 1, CPUs: -1}}, ErrInvalidRequest, "negative"},
		{"unknown gres", Request{}, []NodeUse{{Node: 1, CPUs: 1, GRES: []GRES{{Name: "fpga", Count: 1}}}}, ErrInvalidRequest, "fpga"},
		{"partition", Request{Partition: "q"}, []NodeUse{{Node: 3, CPUs: 1}}, ErrNodeConfig, "n3 is not in partition q"},
		{"excluded", Request{Excluded: []string{"n3"}}, []NodeUse{{Node: 3, CPUs: 1}}, ErrNodeConfig, "n3 is excluded"},
		{"feature", Request{Features: mustExpr(t, "b")}, []NodeUse{{Node: 3, CPUs: 1}}, ErrNodeConfig, "n3: features"},
		{"too many cpus", Request{}, []NodeUse{{Node: 3, CPUs: 9}}, ErrNodeConfig, "n3 has 8 CPUs, the layout gives 9"},
		{"too much memory", Request{}, []NodeUse{{Node: 3, CPUs: 1, Memory: 1001}}, ErrNodeConfig, "n3 has 1000 MB"},
		{"gres above node", Request{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 3}}},
			[]NodeUse{{Node: 3, CPUs: 1, GRES: gpu(3)}}, ErrNodeConfig, "n3 has 2 gpu:v100"},
		{"gres on node without", Request{GRES: g}, []NodeUse{{Node: 4, CPUs: 1, GRES: gpu(1)}}, ErrNodeConfig, "n4: gres"},
		{"zero cpus", Request{}, []NodeUse{{Node: 3}}, ErrInvalidRequest, "needs at least 1 per node"},
		{"memory below", Request{MinMemoryPerNode: 10}, []NodeUse{{Node: 3, CPUs: 1, Memory: 5}}, ErrInvalidRequest, "at least 10 per node"},
		{"gres outside range", Request{GRES: g}, []NodeUse{{Node: 3, CPUs: 1, GRES: gpu(2)}}, ErrInvalidRequest, "asks 1..1"},
		{"gres missing", Request{GRES: g}, []NodeUse{{Node: 3, CPUs: 1}}, ErrInvalidRequest, "gives 0 gpu"},
		{"gres unrequested", Request{}, []NodeUse{{Node: 3, CPUs: 1, GRES: gpu(1)}}, ErrInvalidRequest, "does not request"},
		{"too few nodes", Request{MinNodes: 2}, []NodeUse{{Node: 3, CPUs: 1}}, ErrInvalidRequest, "at least 2"},
		{"too many nodes", Request{MaxNodes: 1}, []NodeUse{{Node: 2, CPUs: 1}, {Node: 3, CPUs: 1}}, ErrInvalidRequest, "at most 1"},
		{"required", Request{Required: []string{"n0"}}, []NodeUse{{Node: 3, CPUs: 1}}, ErrInvalidRequest, "lacks required nodes n0"},
		{"contiguous", Request{MinNodes: 2, Contiguous: true}, []NodeUse{{Node: 1, CPUs: 1}, {Node: 3, CPUs: 1}}, ErrInvalidRequest, "contiguous"},
		{"cpu total", Request{CPUs: 20}, []NodeUse{{Node: 4, CPUs: 16}}, ErrInvalidRequest, "16 CPUs in total, the job needs 20"},
		{"alternative", Request{MinNodes: 2, Features: alt}, []NodeUse{{Node: 3, CPUs: 1}, {Node: 4, CPUs: 1}}, ErrInvalidRequest, "one alternative"},
		{"counted", Request{MinNodes: 2, Features: a}, []NodeUse{{Node: 2, CPUs: 1}, {Node: 3, CPUs: 1}}, ErrInvalidRequest, "counted term b*1 needs 1"},
		{"held", Request{Held: true}, []NodeUse{{Node: 3, CPUs: 1}}, ErrHeld, ""},
		{"time", Request{Partition: "nope"}, []NodeUse{{Node: 3, CPUs: 1}}, ErrInvalidRequest, "unknown partition"},
	}
	c := exactCluster(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.PlaceExact(&tc.req, tc.uses)
			require.ErrorIs(t, err, tc.class)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, e.Reason, tc.why)
		})
	}
	_, err := c.PlaceExact(nil, []NodeUse{{Node: 1, CPUs: 1}})
	assert.ErrorIs(t, err, ErrInvalidRequest)
}

func TestPlaceExactStateAndLoad(t *testing.T) {
	c := exactCluster(t)
	require.NoError(t, c.SetNodeState("n1", NodeDrain))
	_, err := c.PlaceExact(&Request{}, []NodeUse{{Node: 1, CPUs: 1}})
	require.ErrorIs(t, err, ErrPartConfig)
	assert.Contains(t, err.Error(), "node n1 is DRAIN")
	withheld := c.Avail()
	withheld.ClearAll()
	withheld.Set(2)
	_, err = c.PlaceExact(&Request{ExcludeNodes: withheld}, []NodeUse{{Node: 2, CPUs: 1}})
	require.ErrorIs(t, err, ErrPartConfig)

	req := &Request{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}}
	p, err := c.PlaceExact(req, []NodeUse{{Node: 0, CPUs: 6, Memory: 900, GRES: gpu(1)}})
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	busy := []struct {
		uses []NodeUse
		why  string
	}{
		{[]NodeUse{{Node: 0, CPUs: 3, GRES: gpu(1)}}, "n0 has 6 of 8 CPUs in use"},
		{[]NodeUse{{Node: 0, CPUs: 1, Memory: 200, GRES: gpu(1)}}, "n0 has 100 MB free"},
		{[]NodeUse{{Node: 0, CPUs: 1, GRES: gpu(2)}}, "too few gpu:v100"},
	}
	for _, b := range busy {
		_, err := c.PlaceExact(req, b.uses)
		require.ErrorIs(t, err, ErrBusy, b.why)
		assert.Contains(t, err.Error(), b.why)
	}
	_, err = c.PlaceExact(&Request{Share: ShareExclusiveJob}, []NodeUse{{Node: 0, CPUs: 8}})
	require.ErrorIs(t, err, ErrBusy, "an exclusive job needs an idle node")
	assert.Contains(t, err.Error(), "n0 cannot take the job")
	p, err = c.PlaceExact(req, []NodeUse{{Node: 0, CPUs: 2, Memory: 100, GRES: gpu(1)}})
	require.NoError(t, err, "exactly what is left")
	require.NoError(t, c.Allocate(2, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.CheckInvariants())
}

func TestPlaceExactLinearWholeNodes(t *testing.T) {
	c := exactCluster(t, WithSelector(Linear{}))
	_, err := c.PlaceExact(&Request{}, []NodeUse{{Node: 4, CPUs: 8}})
	require.ErrorIs(t, err, ErrInvalidRequest)
	assert.Contains(t, err.Error(), "whole nodes (16 CPUs)")
	p, err := c.PlaceExact(&Request{}, []NodeUse{{Node: 4, CPUs: 16}})
	require.NoError(t, err)
	assert.True(t, p.Exclusive, "a job that may not share holds its nodes")
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	_, err = c.PlaceExact(&Request{}, []NodeUse{{Node: 4, CPUs: 16}})
	require.ErrorIs(t, err, ErrBusy)
}

// A placement SelectNodes returns is accepted by PlaceExact as it stands.
func TestPlaceExactAgreesWithSelectNodes(t *testing.T) {
	c := exactCluster(t)
	reqs := []*Request{
		{Share: ShareExclusiveJob, MinNodes: 2},
		{MinNodes: 2, CPUs: 20},
		{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}, MinMemoryPerNode: 100},
		{MinNodes: 2, Features: mustExpr(t, "[a*1&b*1]")},
	}
	for k, req := range reqs {
		p, err := c.SelectNodes(req, RunNow)
		require.NoError(t, err, k)
		var uses []NodeUse
		for _, a := range p.Alloc {
			u := NodeUse{Node: a.Node, CPUs: a.CPUs, Memory: a.Memory}
			for _, g := range a.GRES {
				u.GRES = append(u.GRES, GRES{Name: g.Name, Type: g.Type, Count: g.Count})
			}
			uses = append(uses, u)
		}
		q, err := c.PlaceExact(req, uses)
		require.NoError(t, err, k)
		assert.Equal(t, p.Names, q.Names, k)
		assert.Equal(t, p.TotalCPUs, q.TotalCPUs, k)
		assert.Equal(t, p.Exclusive, q.Exclusive, k)
		require.NoError(t, c.Allocate(JobID(k+1), q, t0, t0.Add(time.Hour)), k)
		require.NoError(t, c.CheckInvariants())
		require.NoError(t, c.Release(JobID(k+1)))
	}
	require.NoError(t, c.CheckInvariants())
}
