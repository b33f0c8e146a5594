package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every sbatch spelling explain accepts, each with the placement it gives
// on placementtest's small site (old[1-4] 16 CPUs weight 1, new[1-4] 32
// CPUs weight 10, gpu1 with 4 a100, fat1 with 1 TB).
func TestExplainSpellings(t *testing.T) {
	conf := "../../placementtest/testdata/site.conf"
	for _, tc := range []struct{ args, nodes string }{
		{"-N3", "old[1-3]"},
		{"-N 3", "old[1-3]"},
		{"--nodes=3", "old[1-3]"},
		{"--nodes 3", "old[1-3]"},
		{"-N2-3", "old[1-2]"}, // Slurm takes up to the maximum when it can; the default takes the minimum
		{"-n40", "old[1-3]"},
		{"--ntasks=40", "old[1-3]"},
		{"-n4 -c8", "old[1-2]"},
		{"--ntasks=2 --cpus-per-task=20", "new[1-2]"}, // a task's 20 CPUs on one node
		{"-N2 --ntasks-per-node=20", "new[1-2]"},
		{"-C new", "new1"},
		{"--constraint=new", "new1"},
		{"-p gpu", "gpu1"},
		{"-p gpu,batch", "gpu1"},
		{"--partition=fat", "fat1"},
		{"-w old3", "old3"},
		{"--nodelist=old[3-4]", "old[3-4]"},
		{"-N2 -x old1", "old[2-3]"},
		{"-N2 --exclude=old[1-2]", "old[3-4]"},
		{"--mem=100G", "new1"},
		{"--mem-per-cpu=4G -c 16", "new1"},
		{"--tmp=0", "old1"},
		{"-p gpu --gres=gpu:a100:2", "gpu1"},
		{"-p gpu --gpus=2", "gpu1"},
		{"-p gpu --gpus-per-node=4", "gpu1"},
		{"--exclusive", "old1"},
		{"--exclusive=user -N2", "old[1-2]"},
		{"-s", "old1"},
		{"--oversubscribe", "old1"},
		{"--contiguous -N2", "old[1-2]"},
		{"--switches=1@10:00", "old1"},
		{"-t 1-00:00:00", "old1"},
		{"--time=30", "old1"},
		{"--begin=now+1hour", "old1"},
		{"-A physics", "old1"},
		{"--account=physics --qos=normal", "old1"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			args := append([]string{"explain", "--conf", conf, "--json"}, strings.Fields(tc.args)...)
			code, out, errOut := runCmd(t, args...)
			require.Equal(t, 0, code, "%s%s", out, errOut)
			var got explainJSON
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, tc.nodes, got.Nodes)
		})
	}
	code, out, errOut := runCmd(t, "explain", "--conf", conf, "--json", "-N3", "--nodes")
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "usage errors never reach stdout")
	assert.Contains(t, errOut, "--nodes needs a value")
}

func TestExplainLoads(t *testing.T) {
	conf := "../../placementtest/testdata/site.conf"
	code, out, _ := runCmd(t, "explain", "--conf", conf, "--json", "-N2", "--running", "old[1-3]:cpus=16,end=2h", "--busy", "old4")
	require.Equal(t, 0, code, out)
	var got explainJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "new[1-2]", got.Nodes)
	require.NotEmpty(t, got.Sets)
	assert.Equal(t, "old[1-4]", got.Sets[0].Nodes)
	assert.Zero(t, got.Sets[0].Usable, "the structured explanation counts per node set")
	code, _, errOut := runCmd(t, "explain", "--conf", conf, "--running", "old9")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "old9")
}

// A partition whose AllowGroups leave the user out is an invalid request.
func TestExplainPartitionAccess(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=8\nPartitionName=open Nodes=ALL Default=YES\n"+
		"PartitionName=biobank Nodes=n[1-2] AllowGroups=biobank\n"), 0o644))
	// refused at submission, as sbatch refuses it: bad input, the reason
	// on stderr
	code, out, errOut := runCmd(t, "explain", "--conf", conf, "-p", "biobank", "--json")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "allows groups biobank")
	code, out, _ = runCmd(t, "explain", "--conf", conf, "-p", "biobank", "--gid=biobank", "--uid", "ada", "--json")
	assert.Equal(t, 0, code, out)
}

// --state loads a queue snapshot (queue.Scheduler.Snapshot) as the load:
// its running job holds old[1-3], so -N2 goes to old4 and the next weight.
// A snapshot that cannot be read is a usage error, with nothing on stdout.
func TestExplainState(t *testing.T) {
	conf := "../../placementtest/testdata/site.conf"
	cfg, err := slurmconf.ParseFile(os.DirFS(filepath.Dir(conf)), filepath.Base(conf))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	s := queue.New(c)
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	_, err = s.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 3, MaxNodes: 3, Share: selectnodes.ShareExclusiveJob}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err)
	require.Len(t, s.Schedule(t0), 1)
	state := filepath.Join(t.TempDir(), "state.json")
	fh, err := os.Create(state)
	require.NoError(t, err)
	require.NoError(t, s.Snapshot(fh))
	require.NoError(t, fh.Close())

	for _, spell := range [][]string{{"--state", state}, {"--state=" + state}} {
		args := append([]string{"explain", "--conf", conf, "--json", "-N2"}, spell...)
		code, out, errOut := runCmd(t, args...)
		require.Equal(t, 0, code, "%s%s", out, errOut)
		var got explainJSON
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Equal(t, "old4,new1", got.Nodes, "%v", spell)
	}
	code, out, errOut := runCmd(t, "explain", "--conf", conf, "--json", "-N2")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"nodes": "old[1-2]"`, "idle without the snapshot")
	// a --running job on top of the snapshot's takes the next free ID (it
	// was refused as "job 1 is already allocated")
	code, out, errOut = runCmd(t, "explain", "--conf", conf, "--json", "-N2", "--state", state, "--running", "old4")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	var got explainJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "new[1-2]", got.Nodes)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{not json"), 0o644))
	for _, path := range []string{bad, filepath.Join(t.TempDir(), "missing.json")} {
		code, out, errOut = runCmd(t, "explain", "--conf", conf, "--json", "-N2", "--state", path)
		assert.Equal(t, 2, code)
		assert.Empty(t, out, "usage errors never reach stdout")
		assert.Contains(t, errOut, "--state")
	}
}

// --include-dir is where Include lines are also looked for: a conf whose
// nodes and partitions sit in a file of another folder loads with it and
// is refused, naming the file, without it.
func TestExplainIncludeDir(t *testing.T) {
	site, err := os.ReadFile("../../placementtest/testdata/site.conf")
	require.NoError(t, err)
	confDir, incDir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(incDir, "nodes.conf"), site, 0o644))
	conf := filepath.Join(confDir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("ClusterName=inc\nInclude nodes.conf\n"), 0o644))

	for _, spell := range [][]string{{"--include-dir", incDir}, {"--include-dir=" + incDir}} {
		args := append([]string{"explain", "--conf", conf, "--json", "-N3"}, spell...)
		code, out, errOut := runCmd(t, args...)
		require.Equal(t, 0, code, "%s%s", out, errOut)
		var got explainJSON
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Equal(t, "old[1-3]", got.Nodes)
	}
	code, out, errOut := runCmd(t, "explain", "--conf", conf, "--json", "-N3")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "nodes.conf")
}
