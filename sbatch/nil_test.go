package sbatch

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller that ignores Parse's error holds a nil *Options: its methods
// return an *Error saying so, not a nil dereference.
func TestNilOptionsSayWhy(t *testing.T) {
	o, err := Parse([]string{"--nodes=zero"})
	require.Error(t, err)
	require.Nil(t, o)
	var e *Error
	_, err = o.Request("")
	require.ErrorAs(t, err, &e)
	assert.Contains(t, err.Error(), "Parse returned an error")
	_, err = o.Spec(time.Now())
	require.ErrorAs(t, err, &e)
	_, err = o.BeginAt(time.Now())
	require.ErrorAs(t, err, &e)
}

// A nil set is the empty set, which the first partition holds.
func TestPartitionHoldingNilSet(t *testing.T) {
	c, err := selectnodes.New([]selectnodes.Node{{Name: "a", CPUs: 1}, {Name: "b", CPUs: 1}},
		[]selectnodes.Partition{{Name: "small", Nodes: []string{"b"}}, {Name: "all", Nodes: []string{"a", "b"}, Default: true}})
	require.NoError(t, err)
	assert.Equal(t, "small", PartitionHolding(c, nil))
}
