package selectnodes

import (
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
)

// slurm.conf's node states, alone and joined with '+': FAIL and FAILING
// keep new jobs off a node as DRAIN does, DOWN and FUTURE take it out,
// and a down word wins over a drain word whatever their order (FAIL and
// DOWN+DRAIN made an up node).
func TestNodeStateFromConfig(t *testing.T) {
	c := confCluster(t, `NodeName=up1 State=UNKNOWN
NodeName=cloud1 State=CLOUD
NodeName=fail1 State=FAIL
NodeName=failing1 State=FAILING
NodeName=drain1 State=DRAIN
NodeName=downdrain1 State=DOWN+DRAIN
NodeName=draindown1 State=DRAIN+DOWN
NodeName=idledrain1 State=IDLE+DRAIN
NodeName=future1 State=FUTURE
PartitionName=p Nodes=ALL Default=YES
`)
	want := map[string]NodeState{"up1": NodeUp, "cloud1": NodeUp, "fail1": NodeDrain, "failing1": NodeDrain,
		"drain1": NodeDrain, "downdrain1": NodeDown, "draindown1": NodeDown, "idledrain1": NodeDrain, "future1": NodeDown}
	for i := range c.NodeCount() {
		n := c.Node(i)
		assert.Equal(t, want[n.Name], n.State, n.Name)
	}
	_, err := c.Try(&Request{MinNodes: 3}, RunNow)
	assert.Error(t, err, "two nodes take jobs: up1 and cloud1")
	p, err := c.Try(&Request{MinNodes: 2}, RunNow)
	if assert.NoError(t, err) {
		assert.Equal(t, []string{"up1", "cloud1"}, p.Names)
	}
}

// A Clone shares nothing a caller could change: changing the original's
// slices and bitmap after it leaves the clone as it was.
func TestRequestCloneIsDeep(t *testing.T) {
	r := Request{MinNodes: 2, Required: []string{"a"}, Excluded: []string{"b"}, Groups: []string{"g"},
		GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}, ExcludeNodes: bitset.New(8).Set(3)}
	c := r.Clone()
	r.Required[0], r.Excluded[0], r.Groups[0], r.GRES[0].Min = "x", "y", "z", 7
	r.ExcludeNodes.Set(5)
	assert.Equal(t, []string{"a"}, c.Required)
	assert.Equal(t, []string{"b"}, c.Excluded)
	assert.Equal(t, []string{"g"}, c.Groups)
	assert.Equal(t, int64(1), c.GRES[0].Min)
	assert.Equal(t, "{3}", c.ExcludeNodes.String())
	assert.Nil(t, Request{}.Clone().ExcludeNodes)

	// in place: the request then owns its own copies
	shared := []string{"a"}
	in := Request{Required: shared}
	in.DeepCopyInto(&in)
	shared[0] = "x"
	assert.Equal(t, []string{"a"}, in.Required)
	var out Request
	in.DeepCopyInto(&out)
	in.Required[0] = "y"
	assert.Equal(t, []string{"a"}, out.Required)
}
