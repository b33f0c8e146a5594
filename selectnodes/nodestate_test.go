package selectnodes

import (
	"testing"

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
