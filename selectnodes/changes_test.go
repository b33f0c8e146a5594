package selectnodes

import (
	"reflect"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changers are the Cluster methods that write what a placement reads;
// every other exported method must leave Changes as it is.
var changers = map[string]bool{"Allocate": true, "AllocateSelected": true, "Release": true, "SetAllocationEnd": true,
	"SetNodeState": true, "Register": true, "UpdatePartition": true}

func TestEveryMutatorBumpsChanges(t *testing.T) {
	c := uniform(t, 4, 4)
	occupy(t, c, 1, time.Hour, "n0")
	p, err := c.SelectNodes(&Request{CPUs: 2}, RunNow)
	require.NoError(t, err)
	part, _ := c.Partition("p")
	cases := []struct {
		name string
		do   func() error
	}{
		{"Allocate", func() error { return c.Allocate(2, p, t0, t0.Add(time.Hour)) }},
		{"AllocateSelected", func() error {
			q, err := c.SelectNodes(&Request{CPUs: 1}, RunNow)
			if err != nil {
				return err
			}
			return c.AllocateSelected(3, q, t0, t0.Add(time.Hour))
		}},
		{"SetAllocationEnd", func() error { return c.SetAllocationEnd(2, t0.Add(2*time.Hour)) }},
		{"Release", func() error { return c.Release(2) }},
		{"SetNodeState", func() error { return c.SetNodeState("n3", NodeDrain) }},
		{"Register", func() error { _, err := c.Register("n2", Resources{CPUs: 4, RealMemory: 1000}); return err }},
		{"UpdatePartition", func() error { return c.UpdatePartition(part) }},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		before := c.Changes()
		require.NoError(t, tc.do(), tc.name)
		assert.Greater(t, c.Changes(), before, "%s must bump Changes", tc.name)
		seen[tc.name] = true
	}
	for name := range changers {
		assert.True(t, seen[name], "no case calls %s", name)
	}
}

func TestReadersLeaveChangesAlone(t *testing.T) {
	c := uniform(t, 4, 4)
	occupy(t, c, 1, time.Hour, "n0")
	before := c.Changes()
	req := &Request{CPUs: 2}
	set := bitset.New(4)
	_, _ = c.SelectNodes(req, RunNow)
	_, _ = c.SelectNodes(req, TestOnly)
	_, _ = c.Try(req, WillRun)
	_, _ = c.Probe(req, RunNow)
	_, _ = c.ProbeNodes(req, RunNow)
	_ = c.ProbeInto(req, TestOnly, set)
	_ = c.Explain(req, RunNow)
	_, _ = c.Offer(req)
	_, _ = c.OfferTerms(req)
	_, _ = c.OfferKey(req)
	_, _ = c.CountedNeed(req)
	_, _ = c.Resolve(req)
	_, _, _, _ = c.Allocation(1)
	_ = c.Running()
	_, _ = c.JobsOn(0), c.FreeCPUs(0)
	_, _ = c.FreeMemory(0), c.FreeGRES(0, "gpu", "")
	_ = c.FreeCPUsInto(nil)
	_ = c.AppendFreeCPUs(nil)
	_, _ = c.FreeTotals()
	_, _ = c.HasFreeCPU(), c.JobsOnTotal()
	_, _ = c.PartitionNodesInto("p", nil)
	_ = c.UnusableInto(nil)
	c.DescendAllocations(func(JobID, time.Time, *Placement) bool { return true })
	assert.Equal(t, before, c.Changes())
	// a placement handed back changes no load
	p, err := c.SelectNodes(&Request{}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(2, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.Release(2))
	before = c.Changes()
	require.True(t, c.Recycle(p))
	_ = c.Snapshot()
	_ = c.Node(0)
	_, _ = c.NodeSet([]string{"n1"})
	_ = c.Names(set)
	_ = c.CheckInvariants()
	assert.Equal(t, before, c.Changes())

	// a snapshot's own changes are not the cluster's
	s := c.Snapshot()
	q, err := s.SelectNodes(req, RunNow)
	require.NoError(t, err)
	require.NoError(t, s.Allocate(9, q, t0, t0.Add(time.Hour)))
	assert.Equal(t, before, c.Changes())
}

// TestEveryClusterMethodIsClassified makes a method added to Cluster say
// whether it changes what a placement reads: add it to changers (and a
// bump to it) or to readers.
func TestEveryClusterMethodIsClassified(t *testing.T) {
	readers := map[string]bool{}
	for _, m := range []string{"Allocation", "AppendFreeCPUs", "AppendFreeCPUsOn", "Avail", "BuildNodeSets", "Changes", "ConfigChanges",
		"CheckInvariants", "ChecksQOS", "CountFull", "CountedNeed", "DefaultPartition", "DescendAllocations", "Explain", "FeatureIndex",
		"FreeCPUs", "FreeCPUsInto", "FreeGRES", "FreeMemory", "FreeTotals", "HasFreeCPU", "HasPartition", "Idle", "IdleInto", "JobsOn",
		"JobsOnTotal", "MostCPUs", "MostGRES", "MostNodeCPUs", "Names", "Node", "NodeCount", "NodeCounts", "NodeIndex",
		"NodeSet", "Offer", "OfferKey", "OfferTerms", "OversubscribesCPUs", "Partition", "PartitionNodes",
		"PartitionCount", "PartitionNames", "PartitionNodesInto", "PartitionLimits", "Partitions", "PickBestNodes", "PlaceExact", "Probe", "ProbeInto", "ProbeNodes",
		"Recycle", "Reported", "ReqFeatures", "Resolve", "Running", "SelectNodes", "Selector", "Share", "SlurmCompat", "Snapshot",
		"State", "Topology", "Try", "UnusableInto", "Up"} {
		readers[m] = true
	}
	ty := reflect.TypeFor[*Cluster]()
	for i := range ty.NumMethod() {
		name := ty.Method(i).Name
		assert.True(t, changers[name] || readers[name],
			"Cluster.%s is new: if it can change allocations, node states or partitions it must bump Changes", name)
	}
}
