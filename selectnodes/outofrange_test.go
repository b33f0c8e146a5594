package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutOfRangeRequestsAreInvalid: every count or size of a Request that
// means "none" at 0 is refused below 0, and a share request that is none
// of the constants is refused, by every way of selecting, so a caller
// that stores the request (a queue's saved state) never holds one its own
// validation would refuse later, or one it cannot write down.
func TestOutOfRangeRequestsAreInvalid(t *testing.T) {
	for name, req := range map[string]Request{
		"min nodes":       {MinNodes: -1},
		"max nodes":       {MaxNodes: -1},
		"desired nodes":   {DesiredNodes: -1},
		"cpus":            {CPUs: -1},
		"cpus per node":   {MinCPUsPerNode: -1},
		"memory":          {MinMemoryPerNode: -1},
		"tmp disk":        {MinTmpDiskPerNode: -1},
		"mem per cpu":     {MemPerCPU: -1},
		"cpus per socket": {MaxCPUsPerSocket: -1},
		"switches":        {MaxSwitches: -1},
		"time limit":      {TimeLimit: -1},
		"share":           {Share: ShareOversubscribe + 1},
	} {
		for _, compat := range []bool{false, true} {
			c := htCluster(t, compat)
			for _, mode := range []Mode{RunNow, TestOnly, WillRun} {
				_, err := c.SelectNodes(&req, mode)
				assert.ErrorIs(t, err, ErrInvalidRequest, "%s, compat %v, mode %v", name, compat, mode)
				_, ok := c.ProbeNodes(&req, mode)
				assert.False(t, ok, "%s, compat %v, mode %v", name, compat, mode)
			}
			assert.ErrorIs(t, c.Explain(&req, RunNow).Class, ErrInvalidRequest, name)
		}
	}
}

// TestPartitionNegativeLimitsAreRefused: New and UpdatePartition refuse
// every negative limit of a Partition, the memory ones included, and
// leave the partition as it was.
func TestPartitionNegativeLimitsAreRefused(t *testing.T) {
	for name, spoil := range map[string]func(p *Partition){
		"min nodes":     func(p *Partition) { p.MinNodes = -1 },
		"max nodes":     func(p *Partition) { p.MaxNodes = -1 },
		"max time":      func(p *Partition) { p.MaxTime = -1 },
		"default time":  func(p *Partition) { p.DefaultTime = -1 },
		"share count":   func(p *Partition) { p.Sharing.Count = -1 },
		"max cpus/node": func(p *Partition) { p.MaxCPUsPerNode = -1 },
		"max mem/node":  func(p *Partition) { p.MaxMemPerNode = -1 },
		"def mem/cpu":   func(p *Partition) { p.DefMemPerCPU = -1 },
		"def mem/node":  func(p *Partition) { p.DefMemPerNode = -1 },
	} {
		c := htCluster(t, false)
		before, _ := c.Partition("all")
		bad := before
		spoil(&bad)
		assert.Error(t, c.UpdatePartition(bad), name)
		after, _ := c.Partition("all")
		assert.Equal(t, before, after, name)
		_, err := New([]Node{{Name: "h1", CPUs: 4}}, []Partition{func() Partition {
			p := Partition{Name: "all", Nodes: []string{"h1"}}
			spoil(&p)
			return p
		}()})
		assert.Error(t, err, name)
	}
}

// TestPipelineStepsNeedAResolvedJob: the exported steps of the pipeline,
// given no job or a Job Resolve did not make, return ErrInvalidRequest
// instead of dereferencing the missing request or partition.
func TestPipelineStepsNeedAResolvedJob(t *testing.T) {
	c := htCluster(t, false)
	_, err := c.Resolve(nil)
	assert.ErrorIs(t, err, ErrInvalidRequest)
	for name, job := range map[string]*Job{"nil": nil, "zero": {}, "no partition": {Req: &Request{}}} {
		_, err := c.NodeCounts(job)
		assert.ErrorIs(t, err, ErrInvalidRequest, name)
		_, err = c.BuildNodeSets(job)
		assert.ErrorIs(t, err, ErrInvalidRequest, name)
		_, err = c.PickBestNodes(job, nil, Counts{Min: 1}, RunNow)
		assert.ErrorIs(t, err, ErrInvalidRequest, name)
		_, err = c.ReqFeatures(job, nil, Counts{Min: 1}, RunNow)
		assert.ErrorIs(t, err, ErrInvalidRequest, name)
	}
	job, err := c.Resolve(&Request{MinNodes: 2})
	require.NoError(t, err)
	n, err := c.NodeCounts(job)
	require.NoError(t, err)
	sets, err := c.BuildNodeSets(job)
	require.NoError(t, err)
	p, err := c.PickBestNodes(job, sets, n, RunNow)
	require.NoError(t, err)
	assert.Equal(t, 2, p.NodeCount())
}
