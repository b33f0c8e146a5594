package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flags another flag makes meaningless were ignored without a word: a
// --topology without --conf, --machines or --features beside --conf,
// --both beside --compare, --seeds with no generated workload; an empty
// --machines file sized the cluster from the trace header under the
// file's name; --machines, --features, --estimate and --procs with no
// trace to read them.
func TestSimulateRefusesFlagsThatWouldBeIgnored(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))
	empty := filepath.Join(dir, "empty.machines")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=n[1-4] Default=YES\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topology", empty}, "give --conf too"},
		{[]string{"--conf", conf, "--machines", empty}, "--conf gives the cluster"},
		{[]string{"--conf", conf, "--features", "a"}, "--conf gives the cluster"},
		{[]string{"--both", "--compare", "fcfs,easy"}, "give one of them"},
		{[]string{"--seeds", "1-3"}, "--workload has none"},
		{[]string{"--machines", empty}, "no machine in it"},
	} {
		code, _, errOut := runCmd(t, append([]string{"simulate", "-q", "--workload", trace}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", trace+",aucsched:1", "--limit", "5", "--seeds", "1-2", "--conf", conf)
	assert.Equal(t, 0, code, "a generated workload takes the seeds: %s", errOut)
	// the trace's flags with only generated workloads: nothing reads them
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machines", empty}, "--workload has no trace"},
		{[]string{"--features", "a"}, "--workload has no trace"},
		{[]string{"--estimate", "exact"}, "--workload has no trace"},
		{[]string{"--procs", "allocated"}, "--workload has no trace"},
	} {
		code, _, errOut := runCmd(t, append([]string{"simulate", "-q", "--workload", "aucsched:1,aucsched:2"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, _, errOut = runCmd(t, "simulate", "-q", "--workload", "aucsched:1,"+trace, "--limit", "5", "--estimate", "exact")
	assert.Equal(t, 0, code, "a trace among the workloads reads --estimate: %s", errOut)
}

// "sweep plan -h" made a directory named "-h" and planned a sweep in it.
func TestSweepFlagWhereTheDirectoryGoes(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := runCmd(t, "sweep", "plan", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: hpcsched sweep plan DIR")
	code, _, errOut := runCmd(t, "sweep", "plan", "--workload", "aucsched:1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want the directory before the flags")
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// A shard of "{}" passed as task 0 with an empty row; a copy of another
// task's shard was "unreadable or not task N (<nil>)"; a shard of a task
// the plan lacks was left out unseen.
func TestSweepMergeNamesWhatIsWrongWithAShard(t *testing.T) {
	sweep := filepath.Join(t.TempDir(), "sweep")
	code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", "aucsched:1", "--limit", "5", "--compare", "fcfs,easy", "--conf", smallConf(t))
	require.Equal(t, 0, code, errOut)
	for _, task := range []string{"0", "1"} {
		code, _, errOut = runCmd(t, "sweep", "run", sweep, "--task", task)
		require.Equal(t, 0, code, errOut)
	}
	shard := func(n string) string { return filepath.Join(sweep, "shards", n+".json") }
	good0, err := os.ReadFile(shard("0"))
	require.NoError(t, err)
	good1, err := os.ReadFile(shard("1"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, file, data, want string
	}{
		{"empty object", "0", "{}", "no task or no row"},
		{"another task's", "1", string(good0), "holds task 0's run, not task 1's"},
		{"cut short", "1", string(good1[:40]), "not a shard"},
		{"a task the plan lacks", "2", string(good1), "is no task's shard (the plan has tasks 0-1)"},
		{"a padded name", "01", string(good1), "is no task's shard"},
	} {
		require.NoError(t, os.WriteFile(shard(tc.file), []byte(tc.data), 0o644))
		code, _, errOut = runCmd(t, "sweep", "merge", sweep)
		assert.NotEqual(t, 0, code, tc.name)
		assert.Contains(t, errOut, tc.want, tc.name)
		require.NoError(t, os.WriteFile(shard("0"), good0, 0o644))
		require.NoError(t, os.WriteFile(shard("1"), good1, 0o644))
		if tc.file != "0" && tc.file != "1" {
			require.NoError(t, os.Remove(shard(tc.file)))
		}
	}
	code, _, errOut = runCmd(t, "sweep", "merge", sweep)
	assert.Equal(t, 0, code, errOut)
}

// Two runs with one --jobs file (the same variant twice, or the same
// seed twice) stopped the comparison after the first run, or with
// --force overwrote its file; a seed given twice counted its run twice in
// the mean and deviation.
func TestSimulateRefusesTwoRunsOfOneJobsFileAndARepeatedSeed(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "j.csv")
	for _, args := range [][]string{{"--compare", "fcfs,fcfs"}, {"--seeds", "1,1"}, {"--compare", "fcfs,fcfs", "--force"}} {
		code, out, errOut := runCmd(t, append([]string{"simulate", "-q", "--workload", "aucsched:1", "--limit", "5", "--jobs", jobs}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "refused before any run: %v", args)
		assert.Contains(t, errOut, "twice", "%v", args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
	for _, seeds := range []string{"1,1", "1-3,2"} {
		code, _, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "5", "--seeds", seeds)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "is given twice")
	}
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "5", "--seeds", "3-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "runs downward (write 1-3)")
}

// A run's stuck jobs are explained as its rejected ones are.
func TestSimulateSaysWhyJobsAreStuck(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=n[1-4] Default=YES MaxTime=1:00:00\n"), 0o644))
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"2 0 0 10 1 -1 -1 1 7200 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))
	code, out, errOut := runCmd(t, "simulate", "-q", "--workload", trace, "--conf", conf)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out+errOut, "1 jobs still pending when nothing else could happen: 1 PartitionTimeLimit")
}

// A plan whose tasks would write one --jobs file, or read a missing
// trace, was made; its tasks then failed one by one on the cluster.
func TestSweepPlanRefusesWhatSimulateRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--workload", "aucsched:1", "--compare", "fcfs,fcfs", "--jobs", filepath.Join(dir, "j.csv")},
		{"--workload", filepath.Join(dir, "missing.swf")},
	} {
		sweep := filepath.Join(dir, "sweep")
		code, _, errOut := runCmd(t, append([]string{"sweep", "plan", sweep}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		_, err := os.Stat(sweep)
		assert.ErrorIs(t, err, os.ErrNotExist, "no plan made")
	}
}

// A run that failed mid-trace left its --jobs file with the records up to
// the bad line, a file that looked like a whole run's.
func TestFailedRunLeavesNoJobsFile(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"2 100 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"garbage\n"), 0o644))
	jobs := filepath.Join(dir, "j.csv")
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", trace, "--jobs", jobs)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "line 5")
	_, err := os.Stat(jobs)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The --jobs file's close error (a full disk) was set on a shadow of
// runOne's err and lost: the run said 0 with its records unwritten.
func TestJobsFileWriteErrorIsReported(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	jobs := filepath.Join(dir, "full.csv")
	require.NoError(t, os.Symlink("/dev/full", jobs))
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "5", "--jobs", jobs, "--force", "--conf", smallConf(t))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "no space left")
}

// A trace none of whose jobs could be replayed (all of unknown run time)
// with --svg or --out failed with "WriteSVG needs a run made with
// Options.Record", and --out wrote no results.
func TestChartsOfARunOfNoJob(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n1 0 0 -1 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", trace, "--compare", "fcfs,easy", "--out", out)
	require.Equal(t, 0, code, errOut)
	for _, f := range []string{"results.json", "results.csv", "comparison.svg", "t-fcfs.svg"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
}

// --features "a, b" gave the nodes a feature " b" that no job's "b"
// matches, and an empty one.
func TestFeaturesFlagIsTrimmed(t *testing.T) {
	c, _, err := traceCluster(&sim.Trace{MaxNodes: 2, MaxProcs: 2}, &simFlags{extra: "a, b,,"}, "t.swf")
	require.NoError(t, err)
	assert.Equal(t, []string{"cl_node", "nodecpus1", "a", "b"}, c.Node(0).Features)
}

// The cluster's name came from the header's fields, not the cluster: a
// header of MaxProcs alone was "0 nodes of 8 CPUs" for 8 single-CPU nodes.
func TestHeaderClusterIsNamedByWhatItHas(t *testing.T) {
	for _, tc := range []struct {
		tr   sim.Trace
		want string
	}{
		{sim.Trace{MaxProcs: 8}, "8 nodes of 1 CPU (trace header)"},
		{sim.Trace{MaxNodes: 3, MaxProcs: 8, Computer: "X"}, "X, 3 nodes of 2-3 CPUs, 8 in all (trace header)"},
		{sim.Trace{MaxNodes: 24, MaxProcs: 1728}, "24 nodes of 72 CPUs (trace header)"},
	} {
		_, name, err := traceCluster(&tc.tr, &simFlags{}, "t.swf")
		require.NoError(t, err)
		assert.Equal(t, tc.want, name)
	}
}

// A trace read as it goes met the interval-pass budget only when the run
// got there (a minute into KTH-SP2 under the auction every second); sim's
// up-front check from the span of the submissions covered only
// workloads it held. The CLI now measures the span first.
func TestSimulateChecksIntervalPassesBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"2 2000000 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))
	code, out, errOut := runCmd(t, "simulate", "-q", "--workload", trace, "--compare", "fcfs,multifactor", "--interval", "1s")
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "refused before the fcfs run")
	assert.Contains(t, errOut, "more than 1000000 passes")
	code, _, errOut = runCmd(t, "simulate", "-q", "--workload", trace, "--compare", "fcfs,multifactor", "--interval", "1h")
	assert.Equal(t, 0, code, errOut)
	code, _, errOut = runCmd(t, "simulate", "-q", "--workload", trace, "--policy", "multifactor", "--interval", "1s", "--limit", "1")
	assert.Equal(t, 0, code, "--limit 1 spans nothing: %s", errOut)
}

// smallConf is a slurm.conf of four nodes: generated workloads on it cost
// little next to the 1024-node preset.
func smallConf(t *testing.T) string {
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=n[1-4] Default=YES\n"), 0o644))
	return conf
}

// --svg into a missing directory failed after the run, which for the
// auction on a long trace is an hour later.
func TestSimulateRefusesOutputsInMissingDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--svg", "--jobs"} {
		code, out, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "3", "--conf", smallConf(t),
			flag, filepath.Join(dir, "missing", "x.csv"))
		assert.Equal(t, 2, code, flag)
		assert.Empty(t, out, "%s: refused before the run", flag)
		assert.Contains(t, errOut, "is not a directory", flag)
	}
}

// A --topology of another site (none of --conf's nodes under a switch)
// made every job "unrunnable"; it is refused. One that names the nodes
// serves.
func TestSimulateRefusesATopologyOfOtherNodes(t *testing.T) {
	dir := t.TempDir()
	conf := smallConf(t)
	for _, tc := range []struct {
		name, topo string
		code       int
	}{
		{"another site's", "SwitchName=s1 Nodes=zz[1-4]\n", 2},
		{"this cluster's", "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n", 0},
	} {
		topo := filepath.Join(dir, "topology.conf")
		require.NoError(t, os.WriteFile(topo, []byte(tc.topo), 0o644))
		code, out, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "3", "--conf", conf, "--topology", topo)
		assert.Equal(t, tc.code, code, "%s: %s", tc.name, errOut)
		if tc.code != 0 {
			assert.Empty(t, out, tc.name)
			assert.Contains(t, errOut, "--topology "+topo+" names none of the nodes of --conf "+conf, tc.name)
		}
	}
}

// A --conf that is not a whole slurm.conf (a topology.conf, a gres.conf,
// an included nodenames file) is refused: every job was counted as
// never able to run, exit code 0.
func TestSimulateRefusesAConfOfNoNodeOrPartition(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, conf, want string
	}{
		{"a topology.conf", "SwitchName=s1 Nodes=n[1-4]\n", "defines no node"},
		{"a nodenames file", "NodeName=n[1-4] CPUs=4\n", "defines no partition"},
	} {
		conf := filepath.Join(dir, "x.conf")
		require.NoError(t, os.WriteFile(conf, []byte(tc.conf), 0o644))
		code, out, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "3", "--conf", conf)
		assert.Equal(t, 2, code, tc.name)
		assert.Empty(t, out, tc.name)
		assert.Contains(t, errOut, "--conf "+conf+" "+tc.want, tc.name)
	}
}
