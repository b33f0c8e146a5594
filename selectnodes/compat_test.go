package selectnodes_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// c64 is ../shared/slurm2205/c64.conf with a partition of MaxNodes=4 added
// (the partition observations).
const c64 = `SelectType=select/linear
NodeName=n[001-016] CPUs=16 Weight=10 Feature=r1,big
NodeName=n[017-032] CPUs=16 Weight=1 Feature=r2
NodeName=n[033-048] CPUs=16 Weight=1 Feature=r3,ib
NodeName=n[049-064] CPUs=16 Weight=1 Feature=r4,ib
PartitionName=debug Nodes=n[001-064] Default=YES MaxTime=INFINITE State=UP
PartitionName=low Nodes=n[001-064] MaxNodes=4 MaxTime=1:00:00 State=UP
`

func clusterOf(t *testing.T, conf string, compat bool) *selectnodes.Cluster {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader(conf))
	require.NoError(t, err)
	var opts []selectnodes.Option
	if compat {
		opts = append(opts, selectnodes.WithSlurmCompat())
	}
	c, err := selectnodes.FromConfig(cfg, opts...)
	require.NoError(t, err)
	return c
}

func constraint(t *testing.T, s string) *features.Expr {
	t.Helper()
	if s == "" {
		return nil
	}
	e, err := features.Parse(s, features.Legacy())
	require.NoError(t, err)
	return e
}

// Each case is an answer observed on a real Slurm 22.05.8 (the vector or
// the recorded observation cited), and what the default mode answers instead.
func TestSlurmCompatObservedRules(t *testing.T) {
	for _, tc := range []struct {
		name, why      string
		req            selectnodes.Request
		constraint     string
		compat, deflt  string // a hostlist, or a class name
		defaultDiffers string // a phrase the default's explanation holds
	}{
		{name: "bracketed terms fill each from its own nodes", why: "slurm2205 vector 23",
			req: selectnodes.Request{MinNodes: 2, MaxNodes: 2}, constraint: "[r1*1&r4*1]",
			compat: "n[001,049]", deflt: "n[001,049]"},
		{name: "bracketed terms, then the rest at the lowest weight", why: "slurm2205 vector 52",
			req: selectnodes.Request{MinNodes: 3, MaxNodes: 3}, constraint: "[r1*1&r2*1]",
			compat: "n[001,017-018]", deflt: "n[001,017-018]"},
		{name: "unbracketed terms: the rest below the first required node", why: "slurm2205 vector 51",
			req: selectnodes.Request{MinNodes: 3, MaxNodes: 3}, constraint: "r3*1&ib*2",
			compat: "n[032-034]", deflt: "n[033-035]", defaultDiffers: "Slurm satisfies r3*1&ib*2 term by term"},
		{name: "a node range takes up to its maximum", why: "Slurm 22.05: -N3-5 allocates the maximum when it can",
			req:    selectnodes.Request{MinNodes: 3, MaxNodes: 5},
			compat: "n[017-021]", deflt: "n[017-019]", defaultDiffers: "Slurm takes up to 5"},
		{name: "a maximum above the partition's MaxNodes pends", why: "Slurm 22.05: pends with PartitionConfig, not trimmed",
			req:    selectnodes.Request{Partition: "low", MinNodes: 3, MaxNodes: 5},
			compat: "part_config", deflt: "n[017-019]", defaultDiffers: "trimmed to partition low MaxNodes 4"},
		{name: "a minimum above MaxNodes pends in both modes", why: "slurm2205 README, PartitionConfig",
			req:    selectnodes.Request{Partition: "low", MinNodes: 5, MaxNodes: 5},
			compat: "part_config", deflt: "part_config"},
		{name: "no maximum: the partition's applies", why: "Slurm 22.05: -p low -n80 (MaxNodes=4) runs",
			req:    selectnodes.Request{Partition: "low", CPUs: 64},
			compat: "n[017-020]", deflt: "n[017-020]"},
		{name: "matching OR: the first alternative that works", why: "slurm2205 vector 21",
			req: selectnodes.Request{MinNodes: 4, MaxNodes: 4}, constraint: "[r1|r3]",
			compat: "n[001-004]", deflt: "n[033-036]", defaultDiffers: "Slurm takes the first listed that can run, r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, compat := range []bool{true, false} {
				c := clusterOf(t, c64, compat)
				req := tc.req
				req.Features = constraint(t, tc.constraint)
				want := tc.deflt
				if compat {
					want = tc.compat
				}
				p, err := c.SelectNodes(&req, selectnodes.RunNow)
				if strings.Contains(want, "_") {
					assert.Equal(t, want, selectnodes.ClassName(err), "compat=%v (%s)", compat, tc.why)
				} else if assert.NoError(t, err, "compat=%v (%s)", compat, tc.why) {
					assert.Equal(t, want, p.Hostlist(), "compat=%v (%s)", compat, tc.why)
				}
				ex := c.Explain(&req, selectnodes.RunNow)
				if tc.defaultDiffers != "" {
					assert.Equal(t, !compat, strings.Contains(ex.String(), tc.defaultDiffers), "compat=%v:\n%s", compat, ex)
				}
			}
		})
	}
}

// The compat greedy failure speaks to a user who named no nodes.
func TestSlurmCompatGreedyReason(t *testing.T) {
	c := clusterOf(t, c64, true)
	req := &selectnodes.Request{MinNodes: 3, MaxNodes: 3, Features: constraint(t, "r2*1&ib*2")}
	_, err := c.SelectNodes(req, selectnodes.RunNow)
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	assert.NotContains(t, err.Error(), "required nodes")
	assert.Contains(t, err.Error(), "r2*1 took n017, and ib*2 cannot be met with that node among its nodes")
	assert.Contains(t, err.Error(), "[r2*1&ib*2]")
}

func TestSlurmDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00"},
		{59 * time.Second, "0:59"},
		{30 * time.Minute, "30:00"},
		{time.Hour, "1:00:00"},
		{3 * time.Hour, "3:00:00"},
		{24 * time.Hour, "1-00:00:00"},
		{36*time.Hour + 5*time.Minute + 7*time.Second + 300*time.Millisecond, "1-12:05:07"},
		{400 * 24 * time.Hour, "400-00:00:00"},
		{-time.Second, "INVALID"},
	} {
		assert.Equal(t, tc.want, selectnodes.SlurmDuration(tc.d), "%v", tc.d)
	}
}

// A time limit above MaxTime is explained in Slurm's format.
func TestExplainTimesInSlurmFormat(t *testing.T) {
	c := clusterOf(t, c64, false)
	_, err := c.SelectNodes(&selectnodes.Request{Partition: "low", TimeLimit: 3 * time.Hour}, selectnodes.RunNow)
	require.ErrorIs(t, err, selectnodes.ErrPartConfig)
	assert.Contains(t, err.Error(), "time limit 3:00:00 is above partition low MaxTime 1:00:00")
}

// Node sets of equal weight and features are one group, as Slurm merges
// them; the weight and the features are shown, and the JSON carries both
// the records and the groups, per filter, with counts.
func TestExplanationGroupsAndJSON(t *testing.T) {
	conf := `NodeName=a[1-2] CPUs=8 Weight=1 Feature=x
NodeName=b[1-2] CPUs=8 Weight=5 Feature=y
NodeName=a[3-4] CPUs=4 Weight=1 Feature=x
PartitionName=p Nodes=a[1-4],b[1-2] Default=YES
`
	c := clusterOf(t, conf, false)
	ex := c.Explain(&selectnodes.Request{MinNodes: 2, MinCPUsPerNode: 6, Features: constraint(t, "x")}, selectnodes.RunNow)
	groups := ex.Groups()
	require.Len(t, ex.Sets, 3)
	require.Len(t, groups, 2)
	assert.Equal(t, "a[1-4]", groups[0].Nodes)
	assert.Equal(t, int64(1), groups[0].Weight)
	assert.Equal(t, 4, groups[0].Total)
	assert.Equal(t, 2, groups[0].Candidates)
	assert.Contains(t, ex.String(), "node set a[1-4] (weight 1, features x, 4 nodes): 2 candidates")
	assert.Contains(t, ex.String(), "node set b[1-2] (weight 5, features y, 2 nodes): 0 candidates")

	raw, err := json.Marshal(ex)
	require.NoError(t, err)
	var got struct {
		Runnable bool   `json:"runnable"`
		Nodes    string `json:"nodes"`
		Counts   struct{ Min, Desired int }
		Groups   []struct {
			Nodes   string `json:"nodes"`
			Weight  int64  `json:"weight"`
			Removed []struct {
				Filter string `json:"filter"`
				Count  int    `json:"count"`
			} `json:"removed"`
		} `json:"groups"`
		Sets []json.RawMessage `json:"sets"`
	}
	require.NoError(t, json.Unmarshal(raw, &got), string(raw))
	assert.True(t, got.Runnable)
	assert.Equal(t, "a[1-2]", got.Nodes)
	assert.Equal(t, 2, got.Counts.Min)
	assert.Len(t, got.Sets, 3)
	require.Len(t, got.Groups, 2)
	assert.Equal(t, "a[1-4]", got.Groups[0].Nodes)
	require.NotEmpty(t, got.Groups[0].Removed)
	assert.Equal(t, "cpus", got.Groups[0].Removed[0].Filter)
	assert.Equal(t, 2, got.Groups[0].Removed[0].Count)
	assert.Equal(t, "features", got.Groups[1].Removed[0].Filter)

	_, err = c.SelectNodes(&selectnodes.Request{MinNodes: 9}, selectnodes.RunNow)
	var se *selectnodes.Error
	require.ErrorAs(t, err, &se)
	raw, err = json.Marshal(se.Explanation)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"runnable":false`)
	assert.Contains(t, string(raw), `"class":"node_config"`)
}

// When the tree is what blocks a job, the reason names the node: a
// required node under no switch ("circe-n090 is under no switch").
func TestTopologyBlockNamesTheNode(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=circe-n[087-090] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	top, err := slurmconf.ParseTopology(strings.NewReader("SwitchName=s1 Nodes=circe-n[087-089]\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg, selectnodes.WithTopologyConfig(top))
	require.NoError(t, err)

	_, err = c.SelectNodes(&selectnodes.Request{Required: []string{"circe-n090"}}, selectnodes.RunNow)
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	assert.Contains(t, err.Error(), "circe-n090 is under no switch")

	_, err = c.SelectNodes(&selectnodes.Request{MinNodes: 4}, selectnodes.RunNow)
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	assert.Contains(t, err.Error(), "1 of the 4 qualifying nodes (circe-n090) is under no switch")

	p, err := c.SelectNodes(&selectnodes.Request{MinNodes: 3}, selectnodes.RunNow)
	require.NoError(t, err)
	assert.Equal(t, "circe-n[087-089]", p.Hostlist())
}
