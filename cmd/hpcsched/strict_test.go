package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strictConf is a small site: two partitions, features a and b, GPUs of
// type v100 on n[5-8].
func strictConf(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "slurm.conf")
	conf := "GresTypes=gpu\n" +
		"NodeName=n[1-4] CPUs=4 RealMemory=8000 Feature=a\n" +
		"NodeName=n[5-8] CPUs=4 RealMemory=8000 Feature=b Gres=gpu:v100:2\n" +
		"PartitionName=normal Nodes=n[1-8] Default=YES\n" +
		"PartitionName=gpu Nodes=n[5-8]\n"
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o644))
	return path
}

// Requests sbatch refuses are bad input: exit 2, the reason on stderr
// naming the value, nothing on stdout (a --json reader gets JSON or
// nothing).
func TestExplainRefusesInvalidRequests(t *testing.T) {
	conf := strictConf(t)
	counted := "[" + strings.Repeat("a*1&", 16) + "a*1]" // 17 counted terms
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-N1", "-p", "normal,nosuch"}, "invalid partition specified: nosuch"},
		{[]string{"-N1", "-p", "nosuch"}, "invalid partition specified: nosuch"},
		{[]string{"-N1", "-w", "nosuch"}, `"nosuch"`},
		{[]string{"-N1", "--mem=4G", "--mem-per-cpu=1G"}, "--mem and --mem-per-cpu are mutually exclusive"},
		{[]string{"-N1", "--mem-per-cpu=1G", "--mem", "4G"}, "mutually exclusive"},
		{[]string{"-N1", "--gres=gpu:abc"}, `"gpu:abc"`},
		{[]string{"-N1", "--gpus=k80:1"}, `"gpu:k80"`},
		{[]string{"-N1", "--gres=fpga:1"}, `"fpga"`},
		{[]string{"-N", "-1"}, `"-1" is not a count of nodes`},
		{[]string{"-N", "3-x"}, `"3-x" is not a count of nodes`},
		{[]string{"-C", counted}, "17 counted terms"},
		{[]string{"-N1", "--json", "-p", "nosuch"}, "invalid partition"},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, append([]string{"explain", "--conf", conf}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	}
	// the GRES the cluster has, and --gpus of its type, are fine
	for _, args := range [][]string{{"--gres=gpu:v100:1"}, {"--gres=gpu:1"}, {"--gpus-per-node=v100:2"}} {
		code, _, errOut := runCmd(t, append([]string{"explain", "--conf", conf, "-N1"}, args...)...)
		assert.Equal(t, 0, code, "%v: %s", args, errOut)
	}
}

// A conf that cannot give an answer is bad input (2), not a "no" (1);
// paths are named as written.
func TestExplainBadConfIsExit2(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--conf", "/dev/null", "-N1"}, "no default partition"},
		{[]string{"--conf", "/nonexistent/slurm.conf", "-N1"}, "/nonexistent/slurm.conf: no such file"},
		{[]string{"--conf", os.TempDir(), "-N1"}, os.TempDir() + ": is a directory"},
		{[]string{"--conf", strictConf(t), "--topology", "/nonexistent", "-N1"}, "--topology /nonexistent: no such file"},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, append([]string{"explain"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
	}
}

// --begin is honoured: the answer is for then, the JSON says when it
// begins and starts, and a job holding every node until before --begin
// does not keep the request out.
func TestExplainBegin(t *testing.T) {
	conf := strictConf(t)
	cases := []struct {
		args      []string
		runnable  bool
		begin     string
		notBefore time.Time
	}{
		{[]string{"-N1", "--begin=2030-01-01T00:00:00"}, true, "2030-01-01T00:00:00Z", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
		{[]string{"-N8", "--running", "n[1-8]:end=2h", "--begin=now+3hours"}, true, "2026-01-01T03:00:00Z", time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)},
		{[]string{"-N8", "--running", "n[1-8]:end=2h"}, false, "", time.Time{}},
		{[]string{"-N1", "--begin=now"}, true, "", time.Time{}},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, append([]string{"explain", "--conf", conf, "--json"}, c.args...)...)
		var got struct {
			Runnable     bool
			Begin, Start string
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), "%v: %s", c.args, errOut)
		assert.Equal(t, c.runnable, got.Runnable, c.args)
		assert.Equal(t, map[bool]int{true: 0, false: 1}[c.runnable], code, c.args)
		assert.Equal(t, c.begin, got.Begin, c.args)
		if c.runnable {
			start, err := time.Parse(time.RFC3339, got.Start)
			require.NoError(t, err, c.args)
			assert.False(t, start.Before(c.notBefore), "%v: starts %v", c.args, start)
		}
	}
	_, out, _ := runCmd(t, "explain", "--conf", conf, "-N1", "--begin=2030-01-01T00:00:00")
	assert.Contains(t, out, "--begin 2030-01-01T00:00:00Z")
}

// The commands' own usage: help exits 0 on stdout, --version, and a
// mistyped command is one line suggesting the right one.
func TestCommandUsage(t *testing.T) {
	cases := []struct {
		args      []string
		code      int
		out, errs string // fragments; "" for empty
	}{
		{[]string{"hostlist", "--help"}, 0, "usage: hpcsched hostlist", ""},
		{[]string{"hostlist", "-h"}, 0, "usage: hpcsched hostlist", ""},
		{[]string{"hostlist", "expand", "--help"}, 0, "usage: hpcsched hostlist", ""},
		{[]string{"hostlist", "expand", "-x"}, 2, "", "unknown option -x"},
		{[]string{"hostlist"}, 2, "", "usage: hpcsched hostlist"},
		{[]string{"--version"}, 0, "hpcsched ", ""},
		{[]string{"version"}, 0, "hpcsched ", ""},
		{[]string{"simulat"}, 2, "", `unknown command "simulat": did you mean "simulate"?`},
		{[]string{"explian"}, 2, "", `did you mean "explain"?`},
		{[]string{"hostlst"}, 2, "", `did you mean "hostlist"?`},
		{[]string{"sim"}, 2, "", `did you mean "simulate"?`},
		{[]string{"swep"}, 2, "", `did you mean "sweep"?`},
		{[]string{"auctoin"}, 2, "", `did you mean "auction"?`},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate" ('hpcsched --help'`},
		{[]string{"check", "--help"}, 0, "usage: hpcsched check", ""},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, c.args...)
		assert.Equal(t, c.code, code, c.args)
		if c.out == "" {
			assert.Empty(t, out, c.args)
		} else {
			assert.Contains(t, out, c.out, c.args)
		}
		if c.errs == "" {
			assert.Empty(t, errOut, c.args)
		} else {
			assert.Contains(t, errOut, c.errs, c.args)
		}
		if c.code == 2 && !strings.Contains(c.errs, "usage:") {
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		}
	}
}

// Every command the usage lists runs (its help exits 0), and the list
// the suggestions read is the whole of it.
func TestUsageListsEveryCommand(t *testing.T) {
	names := commandNames()
	assert.Equal(t, []string{"simulate", "explain", "hostlist", "check", "alloc", "auction", "sweep"}, names)
	for _, name := range names {
		code, out, errOut := runCmd(t, name, "--help")
		assert.Equal(t, 0, code, "%s --help: %s", name, errOut)
		assert.Contains(t, out+errOut, "hpcsched "+name, name)
	}
}

// Error text: "sbatch:" only before sbatch's options, never before a
// command's own flags; the option lists are whole.
func TestOptionErrorText(t *testing.T) {
	conf := strictConf(t)
	cases := []struct {
		args     []string
		want     string
		sbatched bool
	}{
		{[]string{"simulate", "--depth=x"}, `"x" is not an integer`, false},
		{[]string{"simulate", "--frobnicate"}, "unknown option --frobnicate", false},
		{[]string{"auction", "solve", "-t", "soon", "w.json"}, "not a duration", false},
		{[]string{"check", "--json=1", "t.tsv"}, "--json takes no value", false},
		{[]string{"explain", "--conf", conf, "--json=1"}, "--json takes no value", false},
		{[]string{"explain", "--conf", conf, "--selector"}, "--selector needs a value", false},
		{[]string{"explain", "--conf", conf, "-N", "x"}, `"x" is not a count of nodes`, true},
		{[]string{"explain", "--conf", conf, "--frob"}, "unknown option --frob", true},
		{[]string{"simulate", "--compare", "fcfs,nosuch"}, "fcfs, sjf, ljf, multifactor, auction, auction+reserve", false},
		{[]string{"simulate", "--compare", "fcfs,nosuch"}, "backfill, easy, conservative, none", false},
		{[]string{"simulate", "--csv", "--json"}, "--csv and --json exclude each other", false},
		// --compare and --both would run without the --backfill asked for
		{[]string{"simulate", "--backfill=easy", "--compare", "fcfs,sjf"}, "--backfill is the backfill of a single run", false},
		{[]string{"simulate", "--both", "--backfill"}, "--backfill is the backfill of a single run", false},
		// refused before aucsched:1 runs, not after it with exit code 1
		{[]string{"simulate", "--workload", "aucsched:1,99"}, `unknown AUCSCHED3 workload "99"`, false},
		{[]string{"simulate", "--workload", "aucsched:"}, `unknown AUCSCHED3 workload ""`, false},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
		assert.Equal(t, c.sbatched, strings.Contains(errOut, "sbatch:"), "%v: %s", c.args, errOut)
	}
}

// simulate names a missing workload once, as written.
func TestSimulateMissingWorkloadNamedWhole(t *testing.T) {
	code, out, errOut := runCmd(t, "simulate", "--workload", "/nonexistent/trace.swf", "-q")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "/nonexistent/trace.swf: no such file or directory")
	assert.NotContains(t, errOut, "open trace.swf")
}

// simulate --grid takes -q as simulate does.
func TestGridAcceptsQuiet(t *testing.T) {
	f, err := parseSimFlags([]string{"-q"}, nil)
	require.NoError(t, err)
	assert.True(t, f.quiet)
	code, _, errOut := runCmd(t, "simulate", "--grid", "/nonexistent.conf", "-q")
	assert.Equal(t, 2, code)
	assert.NotContains(t, errOut, "-q", "the grid refused -q")
}

// check: a --conf-dir that is not a folder is bad input.
func TestCheckConfDir(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t.tsv")
	require.NoError(t, os.WriteFile(table, []byte("slurm.conf\t-\t-N1\tn1\n"), 0o644))
	for _, dir := range []string{"/nope", table} {
		code, out, errOut := runCmd(t, "check", "--conf-dir", dir, table)
		assert.Equal(t, 2, code, dir)
		assert.Empty(t, out, dir)
		assert.Contains(t, errOut, dir+" is not a directory")
	}
}

// fullWriter fails every write, as stdout on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Text output that cannot be written is an error, for every command
// that prints text, as it is for --json.
func TestOutputToFullDiskFails(t *testing.T) {
	conf := strictConf(t)
	table := filepath.Join(filepath.Dir(conf), "t.tsv")
	require.NoError(t, os.WriteFile(table, []byte("slurm.conf\t-\t-N1\tn1\n"), 0o644))
	for _, args := range [][]string{
		{"hostlist", "expand", "n[1-3]"},
		{"hostlist", "count", "n[1-3]"},
		{"hostlist", "compress", "n1", "n2"},
		{"explain", "--conf", conf, "-N1"},
		{"explain", "--conf", conf, "-N1", "--json"},
		{"explain", "--conf", conf, "-N9"}, // a "no" still exits non-zero
		{"check", table},
		{"--help"},
		{"--version"},
		{"explain", "--help"},
		{"simulate", "--workload", "aucsched:1", "--limit", "5", "-q"},
	} {
		var errb strings.Builder
		code := run(args, fullWriter{}, &errb)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errb.String(), "no space left on device", args)
	}
}

// --state reads within its budget while reading: /dev/zero, binary data
// and a file that is all white space end with a usage error at once.
func TestExplainStateBoundedWhileReading(t *testing.T) {
	conf := strictConf(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"binary": {'{', 0x01, 0x02},
		"text":   []byte("not json"),
		"spaces": []byte(strings.Repeat(" ", maxLeadingSpace+10) + "{}"),
	}
	paths := []string{"/dev/zero"}
	for name, data := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths = append(paths, p)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue // no /dev/zero here
		}
		code, out, errOut := runCmd(t, "explain", "--conf", conf, "--state", p, "-N1")
		assert.Equal(t, 2, code, p)
		assert.Empty(t, out, p)
		assert.Contains(t, errOut, "--state "+p, p)
		assert.Contains(t, errOut, "not a snapshot", p)
	}
}

// The guard passes a document through unchanged and counts offsets
// across reads.
func TestJSONGuard(t *testing.T) {
	for _, c := range []struct {
		in, err string
	}{
		{"  \n{\"a\": [1, 2]}\n", ""},
		{"{\"a\":\t\"b\"}", ""},
		{"\x00", "byte 0 is 0x00"},
		{"  [1]", `byte 2 is '['`},
		{"{\"a\": \"\x1b\"}", "byte 7 is 0x1b"},
	} {
		g := &jsonGuard{r: iotest.OneByteReader(strings.NewReader(c.in))}
		got, err := io.ReadAll(g)
		if c.err == "" {
			require.NoError(t, err, c.in)
			assert.Equal(t, c.in, string(got))
			continue
		}
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.err)
	}
}

// The default mode says where its answer differs from Slurm 22.05's: a
// bracketed pair of counted terms solved with shared nodes.
func TestExplainSaysWhereItDiffersFromSlurm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slurm.conf")
	require.NoError(t, os.WriteFile(path, []byte("NodeName=n[1-2] CPUs=4 Feature=a\nNodeName=n[3-4] CPUs=4 Feature=a,b\n"+
		"NodeName=n[5-6] CPUs=4 Feature=b\nPartitionName=p Nodes=ALL Default=YES\n"), 0o644))
	var nodes [2]string
	for k, compat := range []bool{false, true} {
		args := []string{"explain", "--conf", path, "-C", "[a*2&b*2]", "--json"}
		if compat {
			args = append(args, "--slurm-compat")
		}
		code, out, errOut := runCmd(t, args...)
		require.Equal(t, 0, code, errOut)
		var got explainJSON
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		nodes[k] = got.Nodes
		assert.Equal(t, !compat, strings.Contains(strings.Join(got.Reasons, "\n"), "differs from Slurm 22.05"), "compat %v", compat)
	}
	assert.NotEqual(t, nodes[0], nodes[1], "the modes answer differently")
}

// check shows progress only on a terminal: run with stderr a pipe or a
// file, it prints nothing there; the progress line counts cases.
func TestCheckProgressOnlyOnATerminal(t *testing.T) {
	conf := strictConf(t)
	table := filepath.Join(filepath.Dir(conf), "t.tsv")
	require.NoError(t, os.WriteFile(table, []byte("slurm.conf\t-\t-N1\tn1\nslurm.conf\t-\t-N2\tn[1-2]\n"), 0o644))
	code, out, errOut := runCmd(t, "check", table)
	assert.Equal(t, 0, code, out)
	assert.Empty(t, errOut)
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer f.Close()
	p := newProgress(f, 2)
	assert.Nil(t, p.w, "a regular file is not a terminal")
	var b strings.Builder
	p = &progress{w: &b, total: 2}
	p.show(1, 0)
	p.done()
	assert.Equal(t, "\rcheck: 1/2 cases, 0 failed\r\033[K", b.String())
}

// alloc's client commands list only their own flags.
func TestAllocClientHelpListsOwnFlags(t *testing.T) {
	for _, c := range []struct{ cmd, own, other string }{
		{"activity", "--history", "--all"},
		{"balance", "--all", "--history"},
	} {
		code, out, _ := runCmd(t, "alloc", c.cmd, "--help")
		assert.Equal(t, 0, code, c.cmd)
		assert.Contains(t, out, c.own, c.cmd)
		assert.NotContains(t, out, c.other, c.cmd)
	}
}
