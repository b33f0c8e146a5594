package slurmconf

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, text string) *Config {
	t.Helper()
	c, err := Parse(strings.NewReader(text))
	require.NoError(t, err)
	return c
}

func TestParseSyntax(t *testing.T) {
	c := parse(t, `# a comment
  ClusterName = tara   # trailing comment
SelectType=select/cons_tres SelectTypeParameters=CR_Core_Memory,CR_CORE_DEFAULT_DIST_BLOCK
InteractiveStepOptions="--interactive --pty --mpi=none $SHELL"
PriorityDecayHalfLife= 7-0
SchedulerParameters=bf_max_job_test=500,bf_continue,\
default_queue_depth=500
MailProg=/usr/bin/mail\#x
someUnknownKey=kept
PriorityWeightAge=1000
PriorityWeightFairshare= 10000
PriorityWeightTRES=CPU=0,Mem=.03
FastSchedule=2
`)
	assert.Equal(t, "tara", c.ClusterName)
	assert.Equal(t, "select/cons_tres", c.SelectType)
	assert.Equal(t, []string{"CR_Core_Memory", "CR_CORE_DEFAULT_DIST_BLOCK"}, c.SelectTypeParameters)
	v, ok := c.Get("interactivestepoptions")
	assert.True(t, ok)
	assert.Equal(t, "--interactive --pty --mpi=none $SHELL", v)
	v, _ = c.Get("PriorityDecayHalfLife")
	assert.Equal(t, "7-0", v)
	assert.Equal(t, []string{"bf_max_job_test=500", "bf_continue", "default_queue_depth=500"}, c.SchedulerParameters)
	bf, ok := c.SchedulerParameter("BF_MAX_JOB_TEST")
	assert.True(t, ok)
	assert.Equal(t, "500", bf)
	_, ok = c.SchedulerParameter("bf_continue")
	assert.True(t, ok)
	_, ok = c.SchedulerParameter("bf_window")
	assert.False(t, ok)
	v, _ = c.Get("MailProg")
	assert.Equal(t, "/usr/bin/mail#x", v)
	v, ok = c.Get("SOMEUNKNOWNKEY")
	assert.True(t, ok)
	assert.Equal(t, "kept", v)
	assert.Equal(t, map[string]int64{"age": 1000, "fairshare": 10000}, c.PriorityWeights)
	assert.Equal(t, 2, c.FastSchedule)
	assert.Equal(t, 6, c.Params[5].Pos.Line, "continued line keeps its first line number")
}

func TestNodeLines(t *testing.T) {
	c := parse(t, `
NodeName=DEFAULT RealMemory=187000 Sockets=2 CoresPerSocket=16 Weight=60
NodeName=n[001-003] Feature=CPU-Gold-6130,OPA
NodeName=gn[001-002] Gres=gpu:tesla_p100-pcie-16gb:2,mps:100 Feature=P100 Weight=190
NodeName=DEFAULT CPUs=40 CoresPerSocket=20 ThreadsPerCore=1
NodeName=g1 Gres=gpu:2(S:0-1)
NodeName  = circe-n001 CPUs=96 Sockets=2 CoresPerSocket=24 ThreadsPerCore=2 Procs=48 RealMemory=1469490 State=unknown
NodeName=old Procs=12 Boards=2 SocketsPerBoard=2 TmpDisk=256 NodeAddr=10.0.0.1 Port=17
NodeName=plain
`)
	require.Len(t, c.Nodes, 6)
	n := c.Nodes[0]
	assert.Equal(t, []string{"n001", "n002", "n003"}, n.Names)
	assert.Equal(t, 2*16, n.CPUs, "CPUs from sockets*cores*threads")
	assert.Equal(t, int64(187000), n.RealMemory)
	assert.Equal(t, int64(60), n.Weight)
	assert.Equal(t, []string{"CPU-Gold-6130", "OPA"}, n.Features)
	assert.Equal(t, 3, n.Pos.Line)

	gn := c.Nodes[1]
	assert.Equal(t, int64(190), gn.Weight)
	assert.Equal(t, []Gres{{Name: "gpu", Type: "tesla_p100-pcie-16gb", Count: 2}, {Name: "mps", Count: 100}}, gn.Gres)

	g1 := c.Nodes[2]
	assert.Equal(t, 40, g1.CPUs, "second DEFAULT adds CPUs")
	assert.Equal(t, int64(60), g1.Weight, "earlier DEFAULT values stay")
	assert.Equal(t, 20, g1.CoresPerSocket)
	assert.Equal(t, []Gres{{Name: "gpu", Count: 2}}, g1.Gres)

	circe := c.Nodes[3]
	assert.Equal(t, 96, circe.CPUs, "CPUs= wins over Procs=")
	assert.Equal(t, 48, circe.Procs)
	assert.Equal(t, "UNKNOWN", circe.State)
	assert.Equal(t, 2, circe.Sockets())

	old := c.Nodes[4]
	assert.Equal(t, 40, old.CPUs, "DEFAULT CPUs=40 still applies")
	assert.Equal(t, 2, old.Boards)
	assert.Equal(t, 4, old.Sockets())
	assert.Equal(t, []string{"10.0.0.1"}, old.Addrs)
	require.Len(t, old.Extra, 1)
	assert.Equal(t, "Port", old.Extra[0].Key)

	plain := c.Nodes[5]
	assert.Equal(t, int64(60), plain.Weight)
	assert.Equal(t, 9, plain.Pos.Line)

	assert.Equal(t, 9, c.NodeCount())
	got, ok := c.Node("gn002")
	require.True(t, ok)
	assert.Equal(t, int64(190), got.Weight)
}

func TestNodeDefaultsWithoutAnyDefaultLine(t *testing.T) {
	c := parse(t, "NodeName=a\n")
	n := c.Nodes[0]
	assert.Equal(t, 1, n.CPUs)
	assert.Equal(t, int64(1), n.RealMemory)
	assert.Equal(t, int64(1), n.Weight)
	assert.Equal(t, "UNKNOWN", n.State)
}

func TestPartitionLines(t *testing.T) {
	c := parse(t, `
PartitionName=DEFAULT State=UP DefaultTime=24:00:00 MaxTime=72:00:00
PartitionName=general Nodes=n[1-4] Default=YES DefMemPerCPU=2800 Priority=100 AllowQOS=a,b
PartitionName=debug Nodes=n[1-2] MaxTime=01:00:00 Priority=700 PriorityTier=3 MaxNodes=1
PartitionName=chx OverSubscribe=FORCE:50 Nodes=ALL MaxTime=INFINITE Hidden=yes
 Partitionname=CLUSTER DEFAULT=NO State=INACTIVE TRESBillingWeights="CPU=1.0,Mem=0.25G" nodes=n1 RootOnly=YES
PartitionName=s Shared=YES MaxNodes=UNLIMITED
PartitionName=e Shared=EXCLUSIVE PriorityTier=2 Priority=9
`)
	require.Len(t, c.Partitions, 6)
	g := c.Partitions[0]
	assert.Equal(t, "general", g.Name)
	assert.True(t, g.Default)
	assert.Equal(t, 72*time.Hour, g.MaxTime)
	assert.Equal(t, 24*time.Hour, g.DefaultTime)
	assert.Equal(t, 100, g.Priority)
	assert.Equal(t, 100, g.PriorityTier)
	assert.Equal(t, int64(2800), g.DefMemPerCPU)
	assert.Equal(t, []string{"a", "b"}, g.AllowQOS)
	assert.Equal(t, Sharing{ShareNo, 1}, g.Sharing)
	assert.Equal(t, UnlimitedNodes, g.MaxNodes)

	d := c.Partitions[1]
	assert.Equal(t, time.Hour, d.MaxTime)
	assert.Equal(t, 700, d.Priority)
	assert.Equal(t, 3, d.PriorityTier)
	assert.Equal(t, 1, d.MaxNodes)

	chx := c.Partitions[2]
	assert.Equal(t, Sharing{ShareForce, 50}, chx.Sharing)
	assert.True(t, chx.AllNodes)
	assert.Equal(t, Unlimited, chx.MaxTime)
	assert.True(t, chx.Hidden)

	cl := c.Partitions[3]
	assert.Equal(t, "INACTIVE", cl.State)
	assert.False(t, cl.Default)
	assert.True(t, cl.RootOnly)
	assert.Equal(t, "CPU=1.0,Mem=0.25G", cl.TRESBillingWeights)
	assert.Equal(t, []string{"n1"}, cl.Nodes)

	assert.Equal(t, Sharing{ShareYes, 4}, c.Partitions[4].Sharing)
	assert.Equal(t, Sharing{ShareExclusive, 1}, c.Partitions[5].Sharing)
	assert.Equal(t, 2, c.Partitions[5].PriorityTier, "an explicit PriorityTier is not overridden by Priority")
	assert.Equal(t, 9, c.Partitions[5].Priority)
}

// MaxCPUsPerNode and LLN are typed, inherited from a DEFAULT line and
// not kept among the unmodelled keys.
func TestPartitionCPUCapAndLLN(t *testing.T) {
	c := parse(t, `PartitionName=DEFAULT LLN=YES
PartitionName=a Nodes=n1 MaxCPUsPerNode=8
PartitionName=b Nodes=n1 MaxCPUsPerNode=UNLIMITED LLN=NO
PartitionName=c Nodes=n1
`)
	require.Len(t, c.Partitions, 3)
	assert.Equal(t, 8, c.Partitions[0].MaxCPUsPerNode)
	assert.True(t, c.Partitions[0].LLN)
	assert.Equal(t, 0, c.Partitions[1].MaxCPUsPerNode)
	assert.False(t, c.Partitions[1].LLN)
	assert.True(t, c.Partitions[2].LLN)
	for _, p := range c.Partitions {
		assert.Empty(t, p.Extra, p.Name)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"60", time.Hour},
		{"30:00", 30 * time.Minute},
		{"02:00:00", 2 * time.Hour},
		{"120:00:00", 120 * time.Hour},
		{"7-0", 7 * 24 * time.Hour},
		{"0-4", 4 * time.Hour},
		{"1-00:00:00", 24 * time.Hour},
		{"00-00:10:00", 10 * time.Minute},
		{"2-12:30", 60*time.Hour + 30*time.Minute},
		{"INFINITE", Unlimited},
		{"unlimited", Unlimited},
		{"-1", Unlimited},
		{"0", 0},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, bad := range []string{"", "abc", "1:2:3:4", "1-", "-5", "10:61", "1:-1", "99999999999"} {
		_, err := ParseDuration(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "2-12:30:00", FormatDuration(60*time.Hour+30*time.Minute))
	assert.Equal(t, "00:10:00", FormatDuration(10*time.Minute))
	assert.Equal(t, "UNLIMITED", FormatDuration(Unlimited))
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text string
		line, col  int
		msg        string
	}{
		{"missing =", "ClusterName tara\n", 1, 1, "expected key=value"},
		{"no key", "=x\n", 1, 1, "without a key"},
		{"quote", "X=\"open\n", 1, 3, "unterminated"},
		{"cpus", "\nNodeName=a CPUs=many\n", 2, 17, "not a whole number"},
		{"negative memory", "NodeName=a RealMemory=-5\n", 1, 23, "outside"},
		{"hostlist", "NodeName=tux[5-3]\n", 1, 14, "descending"},
		{"empty nodename", "NodeName=,\n", 1, 10, "names no node"},
		{"sockets zero", "NodeName=a Sockets=0\n", 1, 20, "outside"},
		{"gres", "NodeName=a Gres=gpu::2\n", 1, 17, "Gres"},
		{"shared", "PartitionName=p Shared=MAYBE\n", 1, 24, "not NO, YES"},
		{"shared count", "PartitionName=p OverSubscribe=EXCLUSIVE:3\n", 1, 31, "only YES and FORCE"},
		{"shared bad count", "PartitionName=p OverSubscribe=FORCE:x\n", 1, 37, "not a whole number"},
		{"maxtime", "PartitionName=p MaxTime=soon\n", 1, 25, "MaxTime"},
		{"bool", "PartitionName=p Default=maybe\n", 1, 25, "not YES or NO"},
		{"state", "PartitionName=p State=SIDEWAYS\n", 1, 23, "State"},
		{"min>max", "PartitionName=p MinNodes=4 MaxNodes=2\n", 1, 1, "MinNodes 4 is above MaxNodes 2"},
		{"empty partition", "PartitionName= Nodes=a\n", 1, 16, "not a valid partition name"},
		{"empty partition at end", "PartitionName=\n", 1, 15, "empty"},
		{"fastschedule", "FastSchedule=3\n", 1, 14, "outside"},
		{"nodeaddr", "NodeName=a[1-2] NodeAddr=x\n", 1, 26, "1 addresses for 2 nodes"},
		{"weight", "NodeName=a Weight=99999999999\n", 1, 19, "outside"},
		{"maxcpuspernode", "PartitionName=p MaxCPUsPerNode=-1\n", 1, 32, "outside"},
		{"lln", "PartitionName=p LLN=sometimes\n", 1, 21, "not YES or NO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.text))
			var e *Error
			require.True(t, errors.As(err, &e), "want *Error, got %v", err)
			assert.Equal(t, tt.line, e.Pos.Line, err.Error())
			assert.Equal(t, tt.col, e.Pos.Column, err.Error())
			assert.Contains(t, e.Msg, tt.msg)
		})
	}
}

func TestErrorText(t *testing.T) {
	_, err := ParseFile(fstest.MapFS{"etc/slurm.conf": {Data: []byte("NodeName=a CPUs=x\n")}}, "etc/slurm.conf")
	require.Error(t, err)
	assert.Equal(t, `etc/slurm.conf:1:17: CPUs: "x" is not a whole number`, err.Error())
}

func TestInclude(t *testing.T) {
	fsys := fstest.MapFS{
		"etc/slurm.conf":         {Data: []byte("ClusterName=c\nInclude nodes.conf\ninclude /etc/slurm/parts.conf\nINCLUDE extra/*.conf\n")},
		"etc/nodes.conf":         {Data: []byte("NodeName=n[1-4] CPUs=8\n")},
		"etc/parts.conf":         {Data: []byte("PartitionName=p Nodes=n[1-4] Default=YES\n")},
		"etc/extra/a.conf":       {Data: []byte("SelectType=select/linear\n")},
		"etc/cycle.conf":         {Data: []byte("Include cycle2.conf\n")},
		"etc/cycle2.conf":        {Data: []byte("Include cycle.conf\n")},
		"etc/missing.conf":       {Data: []byte("\n\nInclude nothere.conf\n")},
		"etc/bad-include.conf":   {Data: []byte("Include nodes.conf\nInclude broken.conf\n")},
		"etc/broken.conf":        {Data: []byte("NodeName=a\nNodeName=b CPUs=-1\n")},
		"etc/include-key.conf":   {Data: []byte("IncludeFoo=1\nInclude=2\n")},
		"etc/include-empty.conf": {Data: []byte("Include   # nothing\n")},
	}
	c, err := ParseFile(fsys, "etc/slurm.conf")
	require.NoError(t, err)
	assert.Equal(t, "c", c.ClusterName)
	assert.Equal(t, 4, c.NodeCount())
	require.Len(t, c.Partitions, 1)
	assert.Equal(t, "select/linear", c.SelectType)
	assert.Equal(t, []string{"etc/slurm.conf", "etc/nodes.conf", "etc/parts.conf", "etc/extra/a.conf"}, c.Files)
	assert.Equal(t, Pos{File: "etc/parts.conf", Line: 1, Column: 1}, c.Partitions[0].Pos)
	require.NoError(t, c.Validate())

	_, err = ParseFile(fsys, "etc/cycle.conf")
	require.ErrorContains(t, err, "include cycle etc/cycle.conf -> etc/cycle2.conf -> etc/cycle.conf")

	_, err = ParseFile(fsys, "etc/missing.conf")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, Pos{File: "etc/missing.conf", Line: 3, Column: 9, Offset: 10}, e.Pos)
	assert.Contains(t, e.Msg, "no such file")

	_, err = ParseFile(fsys, "etc/bad-include.conf")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, Pos{File: "etc/broken.conf", Line: 2, Column: 17, Offset: 27}, e.Pos, "errors name the included file")

	c, err = ParseFile(fsys, "etc/include-key.conf")
	require.NoError(t, err)
	v, _ := c.Get("include")
	assert.Equal(t, "2", v)

	_, err = ParseFile(fsys, "etc/include-empty.conf")
	assert.ErrorContains(t, err, "Include needs a file name")

	_, err = ParseFile(fsys, "etc/none.conf")
	assert.ErrorContains(t, err, "etc/none.conf: cannot read: no such file")

	c, err = Parse(strings.NewReader("Include nodes.conf\n"))
	require.NoError(t, err)
	require.Len(t, c.Includes, 1)
	assert.Equal(t, "nodes.conf", c.Includes[0].Value)
}

func TestIncludeDepth(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := 0; i <= MaxIncludeDepth; i++ {
		fsys[name(i)] = &fstest.MapFile{Data: []byte("Include " + name(i+1) + "\n")}
	}
	fsys[name(MaxIncludeDepth+1)] = &fstest.MapFile{Data: []byte("ClusterName=deep\n")}
	_, err := ParseFile(fsys, name(0))
	assert.ErrorContains(t, err, "nest deeper than 16")
}

func name(i int) string { return "f" + strings.Repeat("x", i) + ".conf" }

func TestValidate(t *testing.T) {
	c := parse(t, `NodeName=n[1-3]
NodeName=n3
PartitionName=p Nodes=n[1-5]
PartitionName=p Nodes=ALL
PartitionName=q Nodes=n1
`)
	err := c.Validate()
	require.Error(t, err)
	var list position.ErrorList
	require.ErrorAs(t, err, &list)
	var msgs []string
	for _, e := range list {
		msgs = append(msgs, e.Error())
	}
	assert.Equal(t, []string{
		"2:1: node n3 is already defined at 1:1",
		"3:1: partition p: node n4 is not defined",
		"4:1: partition p is already defined at 3:1",
	}, msgs)
	assert.Equal(t, "2:1: node n3 is already defined at 1:1 (and 2 more errors)", err.Error())
	assert.Len(t, c.PartitionNodes(&c.Partitions[1]), 4)
	assert.Equal(t, []string{"n1"}, c.PartitionNodes(&c.Partitions[2]))
}

func TestGres(t *testing.T) {
	g, err := ParseGres(strings.NewReader(`AutoDetect=nvml
NodeName=nu-gpu[01-03]       Name=gpu   Type=v100  Count=4   File=/dev/nvidia[0-3]
NodeName=hep-gpu01 Name=gpu Type=titan_xp File=/dev/nvidia[1,5]
Name=gpu File=/dev/nvidia0
NodeName=g1 Name=gpu
NodeName=bb Name=bandwidth Count=4G Flags=CountOnly
`))
	require.NoError(t, err)
	require.Len(t, g.Lines, 5)
	assert.Equal(t, "AutoDetect", g.Params[0].Key)
	assert.Equal(t, []string{"nu-gpu01", "nu-gpu02", "nu-gpu03"}, g.Lines[0].NodeNames)
	assert.Equal(t, int64(4), g.Lines[0].Count)
	assert.Equal(t, "v100", g.Lines[0].Type)
	assert.Len(t, g.Lines[0].Files, 4)
	assert.Equal(t, int64(2), g.Lines[1].Count, "count from files")
	assert.Nil(t, g.Lines[2].NodeNames)
	assert.Equal(t, int64(1), g.Lines[3].Count)
	assert.Equal(t, int64(4<<30), g.Lines[4].Count)
	assert.Equal(t, "Flags", g.Lines[4].Extra[0].Key)

	_, err = ParseGres(strings.NewReader("\nNodeName=a Name=gpu Count=lots\n"))
	assert.ErrorContains(t, err, "2:27: Count")
}

func TestGresString(t *testing.T) {
	assert.Equal(t, "gpu:v100:4", Gres{Name: "gpu", Type: "v100", Count: 4}.String())
	assert.Equal(t, "bandwidth:no_consume:4G", Gres{Name: "bandwidth", Count: 4 << 30, NoConsume: true}.String())
	g, ok := parseGres("bandwidth:lustre:no_consume:4G")
	require.True(t, ok)
	assert.Equal(t, Gres{Name: "bandwidth", Type: "lustre", Count: 4 << 30, NoConsume: true}, g)
}

func TestTopology(t *testing.T) {
	top, err := ParseTopology(strings.NewReader(`
SwitchName=s0 Nodes=tara-c-[001-004] LinkSpeed=100
SwitchName=s1	Nodes=tara-c-[005-006]
SwitchName=s4 Switches=s[0-1]
BlockName=b1 Nodes=n[1-4]
BlockSizes=4,16
`))
	require.NoError(t, err)
	require.Len(t, top.Switches, 3)
	assert.Equal(t, int64(100), top.Switches[0].LinkSpeed)
	assert.Len(t, top.Switches[0].Nodes, 4)
	assert.Equal(t, []string{"s0", "s1"}, top.Switches[2].Switches)
	require.Len(t, top.Blocks, 1)
	assert.Len(t, top.Blocks[0].Nodes, 4)
	assert.Equal(t, []int{4, 16}, top.BlockSizes)

	for text, msg := range map[string]string{
		"SwitchName=s[0-1] Nodes=a\n": "must name one switch",
		"SwitchName= Nodes=a\n":       "must name one switch",
		"SwitchName=\n":               "empty",
		"SwitchName=s Nodes=a[\n":     "never closed",
		"BlockSizes=4,x\n":            "not a whole number",
		"SwitchName=s LinkSpeed=f\n":  "LinkSpeed",
	} {
		_, err := ParseTopology(strings.NewReader(text))
		assert.ErrorContains(t, err, msg, text)
	}
}
