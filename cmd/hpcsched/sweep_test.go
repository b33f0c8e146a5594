package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sweep's tasks, run one by one with SLURM_ARRAY_TASK_ID set as Slurm
// would, merge into the same bytes a local -j run prints and writes.
func TestSweepMergeEqualsLocalRun(t *testing.T) {
	dir := t.TempDir()
	flags := []string{"--workload", "aucsched:1,3", "--limit", "25", "--compare", "fcfs,easy", "--seeds", "1-2", "--json"}
	code, local, errOut := runCmd(t, append(append([]string{"simulate"}, flags...), "-j", "2", "--out", filepath.Join(dir, "local"))...)
	require.Equal(t, 0, code, errOut)

	sweep := filepath.Join(dir, "sweep")
	code, out, errOut := runCmd(t, append(append([]string{"sweep", "plan", sweep}, flags...), "--out", filepath.Join(dir, "merged"))...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "8 runs")
	script, err := os.ReadFile(filepath.Join(sweep, "sweep.sbatch"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "#SBATCH --array=0-7\n")
	assert.Regexp(t, regexp.MustCompile(`(?m)^exec \S+ sweep run `), string(script))
	cwd, err := os.Getwd()
	require.NoError(t, err)
	assert.Contains(t, string(script), "\n#SBATCH --chdir="+cwd+"\n", "tasks resolve relative paths as the plan did")

	code, _, errOut = runCmd(t, "sweep", "merge", sweep)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "8 of 8 tasks have no shard yet")
	for task := 0; task < 8; task++ {
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(task))
		code, _, errOut = runCmd(t, "sweep", "run", sweep)
		require.Equal(t, 0, code, "task %d: %s", task, errOut)
	}
	code, merged, errOut := runCmd(t, "sweep", "merge", sweep)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, local, merged)
	entries, err := os.ReadDir(filepath.Join(dir, "local"))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		a, err := os.ReadFile(filepath.Join(dir, "local", e.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "merged", e.Name()))
		require.NoError(t, err, e.Name())
		assert.Equal(t, string(a), string(b), e.Name())
	}

	t.Setenv("SLURM_ARRAY_TASK_ID", "8")
	code, _, _ = runCmd(t, "sweep", "run", sweep)
	assert.Equal(t, 2, code, "a task past the array")
	code, _, _ = runCmd(t, append([]string{"sweep", "plan", sweep}, flags...)...)
	assert.Equal(t, 2, code, "a plan over a used directory")
}

// Usage errors go to stderr with exit code 2; -h prints the usage on
// stdout and succeeds.
func TestSweepUsage(t *testing.T) {
	code, out, errOut := runCmd(t, "sweep")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "sweep plan DIR")
	code, out, _ = runCmd(t, "sweep", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "sweep merge DIR")
	code, _, _ = runCmd(t, "sweep", "bogus", "x")
	assert.Equal(t, 2, code)
	code, _, errOut = runCmd(t, "sweep", "merge", filepath.Join(t.TempDir(), "none"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "sweep plan' first")
}

// A sweep's files that are devices or endless (a plan or a shard linked
// to /dev/zero) are refused without being read to the end.
func TestSweepRefusesEndlessFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := filepath.Join(t.TempDir(), "sweep")
	code, _, errOut := runCmd(t, "sweep", "plan", dir, "--workload", "aucsched:1", "--limit", "10", "--compare", "fcfs,easy")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCmd(t, "sweep", "run", dir, "--task", "0")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "shards", "1.json")))
	code, _, errOut = runCmd(t, "sweep", "merge", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "shard 1")
	assert.Contains(t, errOut, "not a regular file")

	require.NoError(t, os.Remove(filepath.Join(dir, "sweep.json")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "sweep.json")))
	for _, args := range [][]string{{"sweep", "merge", dir}, {"sweep", "run", dir, "--task", "0"}} {
		code, _, errOut = runCmd(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, errOut, "not a regular file", "%v", args)
	}
}

func TestReadBoundedChecksWhileReading(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	require.NoError(t, os.WriteFile(path, []byte("0123456789"), 0o644))
	data, err := readBounded(path, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(data))
	_, err = readBounded(path, 9)
	assert.ErrorContains(t, err, "longer than 9 bytes")
}

// A sweep whose task fails merges as a local run with that run failing
// does: the other rows, byte for byte, and exit code 1.
func TestSweepMergeWithAFailedTask(t *testing.T) {
	dir := t.TempDir()
	good := "; MaxNodes: 4\n1 0 -1 100 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 200 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n"
	bad := good + "3 9 0 99999999999999999999 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	a, b := filepath.Join(dir, "a.swf"), filepath.Join(dir, "b.swf")
	require.NoError(t, os.WriteFile(a, []byte(good), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(bad), 0o644))
	flags := []string{"--workload", a + "," + b, "--compare", "fcfs,easy", "--csv"}
	code, local, errOut := runCmd(t, append(append([]string{"simulate"}, flags...), "-j", "2")...)
	require.Equal(t, 1, code, errOut)
	sweep := filepath.Join(dir, "sweep")
	code, _, errOut = runCmd(t, append([]string{"sweep", "plan", sweep}, flags...)...)
	require.Equal(t, 0, code, errOut)
	for task := 0; task < 4; task++ {
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(task))
		code, _, _ = runCmd(t, "sweep", "run", sweep)
		assert.Equal(t, map[bool]int{true: 0, false: 2}[task < 2], code, "task %d", task)
	}
	code, merged, errOut := runCmd(t, "sweep", "merge", sweep)
	assert.Equal(t, 1, code, errOut)
	assert.Equal(t, local, merged)
	assert.Contains(t, errOut, b+" fcfs+easy: sweep task 3: "+b+": swf: line 4:")
}

// A task run again (requeued by Slurm, or rerun as merge suggests for a
// task killed half way) overwrites its own --jobs file.
func TestSweepTaskRerunOverwritesItsJobsFile(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep")
	code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", "aucsched:1", "--limit", "10", "--jobs", filepath.Join(dir, "j.csv"))
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "j.csv"), []byte("id,name\n1,half"), 0o644)) // a killed attempt's
	code, _, errOut = runCmd(t, "sweep", "run", sweep, "--task", "0")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(filepath.Join(dir, "j.csv"))
	require.NoError(t, err)
	assert.Equal(t, 11, bytes.Count(data, []byte("\n")))
}

// A shard of another sweep, copied in under a task number this plan has,
// is refused by name, not merged as this plan's run; a shard that names
// no run (another version's) is refused too.
func TestSweepMergeRefusesAForeignShard(t *testing.T) {
	dir := t.TempDir()
	mine, other := filepath.Join(dir, "mine"), filepath.Join(dir, "other")
	for sweep, wl := range map[string]string{mine: "aucsched:1,2", other: "aucsched:3,4"} {
		code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", wl, "--limit", "10", "--compare", "fcfs,easy")
		require.Equal(t, 0, code, errOut)
		for task := 0; task < 4; task++ {
			code, _, errOut = runCmd(t, "sweep", "run", sweep, "--task", strconv.Itoa(task))
			require.Equal(t, 0, code, errOut)
		}
	}
	shard := func(sweep string) string { return filepath.Join(sweep, "shards", "1.json") }
	data, err := os.ReadFile(shard(other))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(shard(mine), data, 0o644))
	code, out, errOut := runCmd(t, "sweep", "merge", mine)
	assert.NotEqual(t, 0, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "holds the run aucsched:3 fcfs+easy seed 1, not this plan's task 1, aucsched:1 fcfs+easy seed 1")

	noRun := regexp.MustCompile(`"run":\{[^}]*\},`).ReplaceAll(data, nil)
	require.NotEqual(t, string(data), string(noRun))
	require.NoError(t, os.WriteFile(shard(mine), noRun, 0o644))
	code, _, errOut = runCmd(t, "sweep", "merge", mine)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "names no run")

	code, _, errOut = runCmd(t, "sweep", "run", mine, "--task", "1")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCmd(t, "sweep", "merge", mine)
	assert.Equal(t, 0, code, errOut)
}

// A plan whose flags were edited so that they give other runs than the
// plan lists (as many) is refused by run and merge: a task would run
// what the flags say and merge label it as the listed run.
func TestSweepRefusesAnEditedPlan(t *testing.T) {
	sweep := filepath.Join(t.TempDir(), "sweep")
	code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", "aucsched:1", "--limit", "10", "--compare", "fcfs,easy")
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(sweep, "sweep.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := bytes.Replace(data, []byte(`"--workload",
    "aucsched:1"`), []byte(`"--workload",
    "aucsched:2"`), 1)
	require.NotEqual(t, string(data), string(edited))
	require.NoError(t, os.WriteFile(path, edited, 0o644))
	for _, args := range [][]string{{"sweep", "run", sweep, "--task", "0"}, {"sweep", "merge", sweep}} {
		code, _, errOut = runCmd(t, args...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errOut, "lists task 0 as aucsched:1 fcfs seed 1, its flags give aucsched:2 fcfs seed 1", args)
	}
	_, err = os.Stat(filepath.Join(sweep, "shards", "0.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no shard written")
}

// A task whose plan lost its shards folder (cleaned by hand) writes its
// shard all the same, instead of failing after its run.
func TestSweepRunRemakesTheShardsFolder(t *testing.T) {
	sweep := filepath.Join(t.TempDir(), "sweep")
	code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", "aucsched:1", "--limit", "5")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.RemoveAll(filepath.Join(sweep, "shards")))
	code, _, errOut = runCmd(t, "sweep", "run", sweep, "--task", "0")
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join(sweep, "shards", "0.json"))
}

// A second merge of a sweep with --out refuses the files the first wrote
// before printing anything, as simulate does before its runs; the tasks'
// --jobs files do not stop it.
func TestSweepMergeTwiceRefusesBeforePrinting(t *testing.T) {
	dir := t.TempDir()
	sweep, out := filepath.Join(dir, "sweep"), filepath.Join(dir, "out")
	code, _, errOut := runCmd(t, "sweep", "plan", sweep, "--workload", "aucsched:1", "--limit", "5", "--compare", "fcfs,easy",
		"--out", out, "--jobs", filepath.Join(dir, "jobs.csv"))
	require.Equal(t, 0, code, errOut)
	for task := 0; task < 2; task++ {
		code, _, errOut = runCmd(t, "sweep", "run", sweep, "--task", strconv.Itoa(task))
		require.Equal(t, 0, code, errOut)
	}
	code, table, errOut := runCmd(t, "sweep", "merge", sweep)
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, table)
	code, again, errOut := runCmd(t, "sweep", "merge", sweep)
	assert.Equal(t, 2, code)
	assert.Empty(t, again)
	assert.Contains(t, errOut, "exists; remove it or pass --force")
}
