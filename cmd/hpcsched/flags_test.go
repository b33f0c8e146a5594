package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command parses the POSIX and GNU spellings sbatch accepts.
func TestSimulateSpellings(t *testing.T) {
	cases := []struct {
		args  []string
		check func(t *testing.T, f *simFlags)
	}{
		{[]string{"--depth", "-1"}, func(t *testing.T, f *simFlags) { assert.Equal(t, -1, f.depth) }},
		{[]string{"--depth=-1"}, func(t *testing.T, f *simFlags) { assert.Equal(t, -1, f.depth) }},
		{[]string{"--limit", "10"}, func(t *testing.T, f *simFlags) { assert.Equal(t, 10, f.limit) }},
		{[]string{"--limit=10"}, func(t *testing.T, f *simFlags) { assert.Equal(t, 10, f.limit) }},
		{[]string{"-q"}, func(t *testing.T, f *simFlags) { assert.True(t, f.quiet) }},
		{[]string{"--quiet"}, func(t *testing.T, f *simFlags) { assert.True(t, f.quiet) }},
		{nil, func(t *testing.T, f *simFlags) {
			assert.Equal(t, sim.NoBackfill, f.backfill.mode)
			assert.Equal(t, "aucsched:6", f.workload)
			assert.Equal(t, uint64(1), f.seed)
		}},
		{[]string{"--backfill"}, func(t *testing.T, f *simFlags) { assert.Equal(t, sim.Conservative, f.backfill.mode) }},
		{[]string{"--backfill=easy"}, func(t *testing.T, f *simFlags) { assert.Equal(t, sim.EASY, f.backfill.mode) }},
		{[]string{"--backfill=conservative"}, func(t *testing.T, f *simFlags) { assert.Equal(t, sim.Conservative, f.backfill.mode) }},
		{[]string{"--backfill=none"}, func(t *testing.T, f *simFlags) { assert.Equal(t, sim.NoBackfill, f.backfill.mode) }},
		{[]string{"--workload", "aucsched:1,2"}, func(t *testing.T, f *simFlags) { assert.Equal(t, "aucsched:1,2", f.workload) }},
		{[]string{"--workload=aucsched:1"}, func(t *testing.T, f *simFlags) { assert.Equal(t, "aucsched:1", f.workload) }},
		{[]string{"--interval", "90s"}, func(t *testing.T, f *simFlags) { assert.Equal(t, 90*time.Second, f.interval) }},
		{[]string{"--seed=7", "--json", "--force"}, func(t *testing.T, f *simFlags) {
			assert.Equal(t, uint64(7), f.seed)
			assert.True(t, f.asJSON)
			assert.True(t, f.force)
		}},
	}
	for _, c := range cases {
		f, err := parseSimFlags(c.args, io.Discard)
		require.NoError(t, err, c.args)
		c.check(t, f)
	}
}

// Bad options are usage errors on stderr (exit 2) that name the option;
// stdout stays empty so a --json consumer gets JSON or nothing.
func TestUsageErrorsGoToStderr(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--frobnicate"}, "unknown option --frobnicate"},
		{[]string{"simulate", "--json", "-Z"}, "unknown option -Z"},
		{[]string{"simulate", "--depth"}, "--depth needs a value"},
		{[]string{"simulate", "--depth=x"}, `"x" is not an integer`},
		{[]string{"simulate", "--seed=-1"}, "not a non-negative integer"},
		{[]string{"simulate", "--interval=5"}, "not a duration"},
		{[]string{"simulate", "--backfill=sometimes"}, "sometimes"},
		{[]string{"simulate", "--json=yes"}, "--json takes no value"},
		{[]string{"simulate", "extra"}, `unexpected argument "extra"`},
		{[]string{"simulate", "--grid", "a.conf", "--limit=x"}, `"x" is not an integer`},
		{[]string{"auction", "gen", "--jobs"}, "--jobs needs a value"},
		{[]string{"auction", "solve", "-t", "soon", "w.json"}, "not a duration"},
		{[]string{"alloc", "balance", "--nope"}, "unknown option --nope"},
		{[]string{"alloc", "serve", "--grace=1"}, "not a duration"},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
	}
}

// -h and --help print the command's usage to stdout and exit 0.
func TestHelpSpellings(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "-h"}, {"simulate", "--help"}, {"simulate", "--grid", "x", "-h"}, {"simulate", "--grid", "--help"},
		{"auction", "solve", "--help"}, {"auction", "gen", "-h"}, {"alloc", "balance", "-h"}, {"alloc", "serve", "-h"},
	} {
		code, out, errOut := runCmd(t, args...)
		assert.Equal(t, 0, code, args)
		assert.Empty(t, errOut, args)
		assert.Contains(t, out, "usage: hpcsched "+args[0], args)
		assert.Contains(t, out, "-h, --help", args)
	}
	_, out, _ := runCmd(t, "simulate", "-h")
	assert.Contains(t, out, "-q, --quiet")
	assert.Contains(t, out, "--backfill[=MODE]")
	assert.Contains(t, out, "--workload SPEC")
	assert.Contains(t, out, "(default aucsched:6)")
	assert.Contains(t, out, "hpcsched simulate --grid --help", "the grid's flags are named")
	_, out, _ = runCmd(t, "simulate", "--grid", "--help")
	assert.Contains(t, out, "--threshold DURATION", "--help is not read as the grid's files")
}

// Every flag line of every command's help names its default at most once,
// and never shows a sentinel value: auction solve's --time-limit once read
// "(default 1s) (default -2562047h47m16.854775808s)".
func TestHelpShowsEachDefaultOnce(t *testing.T) {
	for _, args := range [][]string{
		{"simulate"}, {"simulate", "--grid"}, {"explain"}, {"check"},
		{"alloc", "serve"}, {"alloc", "project", "create"}, {"alloc", "create"}, {"alloc", "credit"},
		{"alloc", "job", "cancel"}, {"alloc", "usage"}, {"alloc", "balance"}, {"alloc", "activity"},
		{"alloc", "failures"}, {"alloc", "check"}, {"alloc", "repair"},
		{"auction", "solve"}, {"auction", "gen"}, {"auction", "lp"},
	} {
		code, out, _ := runCmd(t, append(args, "--help")...)
		require.Equal(t, 0, code, args)
		for _, line := range strings.Split(out, "\n") {
			assert.LessOrEqual(t, strings.Count(line, "(default "), 1, "%v: %s", args, line)
			assert.NotContains(t, line, "(default -", "%v: a negative default is a sentinel", args)
		}
	}
}
