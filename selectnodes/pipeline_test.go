package selectnodes

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustExpr(t testing.TB, s string, opts ...features.Option) *features.Expr {
	t.Helper()
	e, err := features.Parse(s, opts...)
	require.NoError(t, err)
	return e
}

func confCluster(t testing.TB, conf string, opts ...Option) *Cluster {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader(conf))
	require.NoError(t, err)
	c, err := FromConfig(cfg, opts...)
	require.NoError(t, err)
	return c
}

const nymfeAFirst = `
NodeName=nymfe[71-72] Feature=A
NodeName=nymfe[73-74] Feature=A,B
PartitionName=debug Nodes=nymfe[71-74] Default=YES
`

const nymfeABFirst = `
NodeName=nymfe[73-74] Feature=A,B
NodeName=nymfe[71-72] Feature=A
PartitionName=debug Nodes=nymfe[71-74] Default=YES
`

// Seed 000 §3.3: Slurm rejects -C "A*1&B*2" when the A-only line comes
// first and runs it on nymfe[73-74] when the lines are swapped. The
// default solver places it on nymfe[73-74] in both orders.
func TestCountFeaturesSection33(t *testing.T) {
	for _, tt := range []struct {
		name    string
		conf    string
		compat  bool
		wantErr error
	}{
		{"default/A-first", nymfeAFirst, false, nil},
		{"default/AB-first", nymfeABFirst, false, nil},
		{"compat/A-first", nymfeAFirst, true, ErrNodeConfig},
		{"compat/AB-first", nymfeABFirst, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.compat {
				opts = append(opts, WithSlurmCompat())
			}
			c := confCluster(t, tt.conf, opts...)
			for _, minNodes := range []int{0, 2} {
				req := &Request{MinNodes: minNodes, Features: mustExpr(t, "A*1&B*2", features.Legacy())}
				p, err := c.SelectNodes(req, RunNow)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
					var e *Error
					require.ErrorAs(t, err, &e)
					require.NotNil(t, e.Explanation)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, "nymfe[73-74]", p.Hostlist())
			}
		})
	}
}

func TestErrorClasses(t *testing.T) {
	c := confCluster(t, `
NodeName=a[1-4] CPUs=4 RealMemory=1000 Feature=x
NodeName=b[1-2] CPUs=8 RealMemory=2000 Feature=y
PartitionName=p Nodes=a[1-4],b[1-2] Default=YES MaxTime=60 MaxNodes=5
PartitionName=small Nodes=a[1-2] MinNodes=3
PartitionName=down Nodes=a1 State=DOWN
PartitionName=root Nodes=a1 RootOnly=YES
`)
	occupy(t, c, 1, time.Hour, "a1", "a2")
	require.NoError(t, c.SetNodeState("a3", NodeDrain))
	tests := []struct {
		name  string
		req   Request
		class error
		why   string
	}{
		{"too many nodes", Request{MinNodes: 7}, ErrPartConfig, "at most 5"},
		{"node config: memory", Request{MinMemoryPerNode: 4000}, ErrNodeConfig, "per-node constraints"},
		{"node config: features", Request{Features: mustExpr(t, "x&y")}, ErrNodeConfig, ""},
		{"node config: count", Request{MinNodes: 3, Features: mustExpr(t, "y")}, ErrNodeConfig, "even if all were idle and up"},
		{"partition: drained", Request{MinNodes: 4, Features: mustExpr(t, "x")}, ErrPartConfig, "up and not drained"},
		{"busy", Request{MinNodes: 2, Features: mustExpr(t, "x")}, ErrBusy, "in use"},
		{"held", Request{Held: true}, ErrHeld, ""},
		{"unknown partition", Request{Partition: "nope"}, ErrInvalidRequest, "unknown partition"},
		{"unknown node", Request{Required: []string{"zz"}}, ErrInvalidRequest, "zz"},
		{"required and excluded", Request{Required: []string{"a1"}, Excluded: []string{"a1"}}, ErrInvalidRequest, "both"},
		{"min above max", Request{MinNodes: 3, MaxNodes: 2}, ErrInvalidRequest, ""},
		{"partition MinNodes vs MaxNodes", Request{Partition: "small", MaxNodes: 2}, ErrPartConfig, "MinNodes 3"},
		{"partition down", Request{Partition: "down"}, ErrPartConfig, "DOWN"},
		{"root only", Request{Partition: "root"}, ErrPartConfig, "RootOnly"},
		{"time limit", Request{TimeLimit: 2 * time.Hour}, ErrPartConfig, "MaxTime"},
		{"required excluded by features", Request{Required: []string{"b1"}, Features: mustExpr(t, "x")}, ErrNodeConfig, "b1"},
		{"required busy", Request{Required: []string{"a1"}}, ErrBusy, ""},
		{"required drained", Request{Required: []string{"a3"}}, ErrPartConfig, "a3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SelectNodes(&tt.req, RunNow)
			require.ErrorIs(t, err, tt.class, "%v", err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, e.Reason, tt.why)
			require.NotNil(t, e.Explanation)
			assert.Equal(t, tt.class, e.Explanation.Class, "the explanation agrees with the error")
		})
	}
	// Root may use the RootOnly partition.
	_, err := c.SelectNodes(&Request{Partition: "root", Root: true}, TestOnly)
	assert.NoError(t, err)
	// TestOnly ignores the load but not the drained node.
	_, err = c.SelectNodes(&Request{MinNodes: 2, Features: mustExpr(t, "x")}, TestOnly)
	assert.NoError(t, err)
	_, err = c.SelectNodes(&Request{MinNodes: 4, Features: mustExpr(t, "x")}, TestOnly)
	assert.ErrorIs(t, err, ErrPartConfig)
}

func TestBuildNodeSetsAndCounts(t *testing.T) {
	c := confCluster(t, `
NodeName=slow[1-3] CPUs=4 RealMemory=1000 Weight=5 Feature=ib
NodeName=fast[1-2] CPUs=8 RealMemory=4000 Weight=1 Feature=ib,gpu Gres=gpu:v100:2
NodeName=mid[1-2] CPUs=8 RealMemory=2000 Weight=5
PartitionName=p Nodes=slow[1-3],fast[1-2],mid1 Default=YES MinNodes=2 MaxNodes=4
`)
	req := &Request{Features: mustExpr(t, "ib"), Excluded: []string{"slow2"}}
	job, err := c.Resolve(req)
	require.NoError(t, err)
	sets, err := c.BuildNodeSets(job)
	require.NoError(t, err)
	require.Len(t, sets, 2)
	assert.Equal(t, int64(1), sets[0].Weight, "lowest weight first")
	assert.Equal(t, []string{"fast1", "fast2"}, c.Names(sets[0].Nodes()))
	assert.Equal(t, []string{"slow1", "slow3"}, c.Names(sets[1].Nodes()))

	n, err := c.NodeCounts(job)
	require.NoError(t, err)
	assert.Equal(t, Counts{Min: 2, Desired: 2, Max: 4}, n)
	job.Req = &Request{MinNodes: 1, MaxNodes: 10, DesiredNodes: 9}
	n, err = c.NodeCounts(job)
	require.NoError(t, err)
	assert.Equal(t, Counts{Min: 2, Desired: 4, Max: 4}, n)

	ex := c.Explain(&Request{MinMemoryPerNode: 3000, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}}, RunNow)
	require.Nil(t, ex.Class, ex.String())
	text := ex.String()
	assert.Contains(t, text, "memory removed 3 (RealMemory 1000 < 3000)")
	assert.Contains(t, text, "node set mid[1-2] (weight 5, 2 nodes)")
	assert.Contains(t, text, "partition removed 1")
	assert.Contains(t, text, "result: runnable on fast[1-2]")
}

func TestFastSchedule(t *testing.T) {
	conf := `
NodeName=n[1-2] CPUs=4 RealMemory=1000
PartitionName=p Nodes=n[1-2] Default=YES
`
	for _, tt := range []struct {
		fs       int
		downs    bool // does a node reporting less go down?
		bigFits  bool // can a request above the baseline use a node that reported more?
		smallRun bool
	}{
		{0, true, true, true},
		{1, true, false, true},
		{2, false, false, true},
	} {
		c := confCluster(t, conf, WithFastSchedule(tt.fs))
		down, err := c.Register("n1", Resources{CPUs: 4, RealMemory: 500})
		require.NoError(t, err)
		assert.Equal(t, tt.downs, down, "FastSchedule=%d", tt.fs)
		_, err = c.Register("n2", Resources{CPUs: 4, RealMemory: 8000})
		require.NoError(t, err)
		p, err := c.SelectNodes(&Request{MinMemoryPerNode: 4000}, RunNow)
		if tt.bigFits {
			require.NoError(t, err, "FastSchedule=%d", tt.fs)
			assert.Equal(t, []string{"n2"}, p.Names)
		} else {
			assert.ErrorIs(t, err, ErrNodeConfig, "FastSchedule=%d", tt.fs)
		}
		_, err = c.SelectNodes(&Request{MinNodes: 2}, RunNow)
		if tt.downs {
			assert.ErrorIs(t, err, ErrPartConfig)
		} else {
			assert.NoError(t, err)
		}
	}
	_, err := New(nil, nil, WithFastSchedule(3))
	assert.Error(t, err)
}

func TestMatchingOr(t *testing.T) {
	conf := `
NodeName=r1n[1-2] Feature=rack1 Weight=10
NodeName=r2n[1-2] Feature=rack2 Weight=1
NodeName=r3n[1-3] Feature=rack3 Weight=5
PartitionName=p Nodes=ALL Default=YES
`
	c := confCluster(t, conf)
	p, err := c.SelectNodes(&Request{MinNodes: 2, Features: mustExpr(t, "[rack1|rack2|rack3]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "r2n[1-2]", p.Hostlist(), "default: the cheapest alternative")
	p, err = c.SelectNodes(&Request{MinNodes: 3, Features: mustExpr(t, "[rack1|rack2|rack3]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "r3n[1-3]", p.Hostlist(), "all nodes share one alternative")

	compat := confCluster(t, conf, WithSlurmCompat())
	p, err = compat.SelectNodes(&Request{MinNodes: 2, Features: mustExpr(t, "[rack1|rack2|rack3]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "r1n[1-2]", p.Hostlist(), "compat: the first alternative that can be satisfied")

	occupy(t, c, 1, time.Hour, "r3n1")
	_, err = c.SelectNodes(&Request{MinNodes: 3, Features: mustExpr(t, "[rack1|rack2|rack3]")}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "rack3 is busy; the others are too small (node config), busy wins")
	_, err = c.SelectNodes(&Request{MinNodes: 4, Features: mustExpr(t, "[rack1|rack2|rack3]")}, RunNow)
	assert.ErrorIs(t, err, ErrNodeConfig)
}

func TestCountFeaturesDefault(t *testing.T) {
	c := confCluster(t, `
NodeName=a[1-4] Feature=A Weight=1
NodeName=ab[1-2] Feature=A,B Weight=10
NodeName=c[1-2] Feature=C Weight=1
NodeName=abc1 Feature=A,B,C Weight=100
PartitionName=p Nodes=ALL Default=YES
`)
	tests := []struct {
		expr  string
		nodes int
		want  string
		class error
	}{
		{"[A*1&B*1]", 0, "ab1", nil},            // one node covers both terms
		{"[A*2&B*1]", 0, "a1,ab1", nil},         // cheap A first, then the cheapest B
		{"[B*3]", 0, "ab[1-2],abc1", nil},       // every B node
		{"[B*4]", 0, "", ErrNodeConfig},         // only three B nodes exist
		{"[A*2&C*2]", 0, "a[1-2],c[1-2]", nil},  // disjoint classes
		{"[B*1&C*1]", 0, "ab1,c1", nil},         // cheaper than abc1 alone (weight 11 < 100)
		{"[(A&B)*1&C*1]", 3, "ab1,c[1-2]", nil}, // the extra node: weight 1, best-fit run (c2)
		{"[A*1&B*1]", 0, "ab1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := c.SelectNodes(&Request{MinNodes: tt.nodes, Features: mustExpr(t, tt.expr)}, RunNow)
			if tt.class != nil {
				require.ErrorIs(t, err, tt.class)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Hostlist())
		})
	}
	// busy versus never
	occupy(t, c, 1, time.Hour, "ab1", "ab2")
	_, err := c.SelectNodes(&Request{Features: mustExpr(t, "[B*3]")}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	p, err := c.SelectNodes(&Request{Features: mustExpr(t, "[B*3]")}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), p.Start)
	require.NoError(t, c.SetNodeState("abc1", NodeDown))
	_, err = c.SelectNodes(&Request{Features: mustExpr(t, "[B*3]")}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig)
}

// "A*4&B*3&C*2" under Slurm's greedy accumulation asks for four nodes
// that all have A, B and C (the Novotný thesis §3.3).
func TestCompatCountsCounterIntuitive(t *testing.T) {
	conf := `
NodeName=x[1-4] Feature=A,B,C
NodeName=y[1-8] Feature=A
PartitionName=p Nodes=ALL Default=YES
`
	compat := confCluster(t, conf, WithSlurmCompat())
	p, err := compat.SelectNodes(&Request{Features: mustExpr(t, "A*4&B*3&C*2", features.Legacy())}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "x[1-4]", p.Hostlist())
	def := confCluster(t, conf)
	p, err = def.SelectNodes(&Request{Features: mustExpr(t, "A*4&B*3&C*2", features.Legacy())}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "x[1-4]", p.Hostlist(), "cheapest cover: x nodes count for every term")
}

func TestWillRun(t *testing.T) {
	c := uniform(t, 4, 2)
	occupy(t, c, 1, 3*time.Hour, "n0")
	occupy(t, c, 2, time.Hour, "n1", "n2")
	occupy(t, c, 3, 2*time.Hour, "n3")
	p, err := c.SelectNodes(&Request{MinNodes: 2}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), p.Start)
	assert.Equal(t, []string{"n1", "n2"}, p.Names)
	p, err = c.SelectNodes(&Request{MinNodes: 4}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(3*time.Hour), p.Start)
	p, err = c.SelectNodes(&Request{MinNodes: 3, Contiguous: true}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Hour), p.Start, "n1-n3 once jobs 2 and 3 end")
	require.NoError(t, c.Release(2))
	p, err = c.SelectNodes(&Request{MinNodes: 2}, WillRun)
	require.NoError(t, err)
	assert.True(t, p.Immediate)
	assert.True(t, p.Start.IsZero())
	_, err = c.SelectNodes(&Request{MinNodes: 5}, WillRun)
	assert.ErrorIs(t, err, ErrNodeConfig)
	require.NoError(t, c.SetNodeState("n0", NodeDown))
	_, err = c.SelectNodes(&Request{MinNodes: 4}, WillRun)
	assert.ErrorIs(t, err, ErrPartConfig)
}

func TestExplainCountsAndAlternatives(t *testing.T) {
	c := confCluster(t, nymfeAFirst, WithSlurmCompat())
	ex := c.Explain(&Request{Features: mustExpr(t, "A*1&B*2", features.Legacy())}, RunNow)
	assert.Equal(t, ErrNodeConfig, ex.Class)
	text := ex.String()
	assert.Contains(t, text, "count A*1 (SlurmCompat greedy): nymfe71")
	assert.Contains(t, text, "count B*2 (SlurmCompat greedy, 1 sets)")
	assert.Contains(t, text, "result: node_config")
}
