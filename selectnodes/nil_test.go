package selectnodes_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nil configuration or option is an error naming the function and the
// argument, never a nil dereference.
func TestNilArguments(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	nodes := []selectnodes.Node{{Name: "n1", CPUs: 4}}
	tests := []struct {
		name, want string
		call       func() error
	}{
		{"FromConfig nil config", "selectnodes.FromConfig: the configuration is nil",
			func() error { _, err := selectnodes.FromConfig(nil); return err }},
		{"FromConfig nil option", "selectnodes.FromConfig: option 1 is nil",
			func() error { _, err := selectnodes.FromConfig(cfg, selectnodes.WithSlurmCompat(), nil); return err }},
		{"New nil option", "selectnodes.New: option 0 is nil",
			func() error { _, err := selectnodes.New(nodes, nil, nil); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = tt.call() })
			require.ErrorIs(t, err, selectnodes.ErrNilArgument)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A request holding the zero features.Expr asks what a request without a
// constraint asks.
func TestZeroExprRequest(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(
		"NodeName=a[1-2] CPUs=4 Feature=x\nNodeName=b[1-2] CPUs=8\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	for _, mode := range []selectnodes.Mode{selectnodes.RunNow, selectnodes.TestOnly, selectnodes.WillRun} {
		for _, req := range []selectnodes.Request{{MinNodes: 3}, {MinNodes: 5}, {CPUs: 20}} {
			plain, zero := req, req
			zero.Features = &features.Expr{}
			want, wantErr := c.SelectNodes(&plain, mode)
			var got *selectnodes.Placement
			require.NotPanics(t, func() { got, err = c.SelectNodes(&zero, mode) })
			assert.Equal(t, selectnodes.ClassName(wantErr), selectnodes.ClassName(err), "%+v %v", req, mode)
			if wantErr == nil {
				assert.Equal(t, want.Hostlist(), got.Hostlist(), "%+v %v", req, mode)
			}
			require.NotPanics(t, func() { _ = c.Explain(&zero, mode).String() })
		}
	}
}

// Node hands out a copy: editing its feature or GRES list changes no node
// (the nodes of one NodeName line share their lists inside the cluster).
func TestNodeIsACopy(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(
		"NodeName=n[1-2] CPUs=4 Feature=x Gres=gpu:2\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	n := c.Node(0)
	n.Features[0] = "y"
	n.GRES[0].Count = 100
	for i := range 2 {
		assert.Equal(t, []string{"x"}, c.Node(i).Features)
		assert.Equal(t, int64(2), c.Node(i).GRES[0].Count)
	}
	cons, _ := features.Parse("y")
	_, err = c.SelectNodes(&selectnodes.Request{MinNodes: 1, Features: cons}, selectnodes.RunNow)
	assert.Error(t, err, "no node has feature y")
}

// A nil Explanation (none was asked for) writes a line saying so.
func TestNilExplanationWrites(t *testing.T) {
	var ex *selectnodes.Explanation
	var b strings.Builder
	n, err := ex.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, "no explanation\n", b.String())
	assert.Equal(t, int64(b.Len()), n)
	assert.Equal(t, "no explanation\n", ex.String())
}

// A nil node set is the empty set: it has no names and no idle node.
func TestNilNodeSet(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	s := c.Snapshot()
	require.NotPanics(t, func() {
		assert.Nil(t, c.Names(nil))
		assert.Nil(t, s.Names(nil))
		assert.Equal(t, 0, s.IdleIn(nil))
	})
}

// A pending job has no Placement and no Explanation (queue.Job's are nil
// then): printing them gives "" and "no explanation" or null, not a nil
// dereference.
func TestNilPlacementAndExplanationRead(t *testing.T) {
	var p *selectnodes.Placement
	assert.Equal(t, "", p.Hostlist())
	assert.Zero(t, p.NodeSet().Count())
	var e *selectnodes.Explanation
	assert.Equal(t, "no explanation\n", e.String())
	assert.Nil(t, e.Groups())
	text, err := e.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "null", string(text))
	text, err = json.Marshal(struct{ E *selectnodes.Explanation }{})
	require.NoError(t, err)
	assert.Equal(t, `{"E":null}`, string(text))
}
