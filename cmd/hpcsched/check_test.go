package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a table beside a copy of placementtest's site conf
func checkTable(t *testing.T, lines ...string) string {
	t.Helper()
	dir := t.TempDir()
	conf, err := os.ReadFile("../../placementtest/testdata/site.conf")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "site.conf"), conf, 0o644))
	path := filepath.Join(dir, "t.tsv")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path
}

func TestCheckCommand(t *testing.T) {
	good := "site.conf\t-\t-N2\told[1-2]"
	bad := "site.conf\t-\t-N2 -C new\told[1-2]"
	for _, tc := range []struct {
		name   string
		lines  []string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"all pass", []string{"# comment", "", good}, nil, 0, []string{"1 passed, 0 failed"}, ""},
		{"a mismatch", []string{good, bad}, nil, 1, []string{"t.tsv:2: site.conf | - | -N2 -C new: want old[1-2], got new[1-2]", "1 passed, 1 failed"}, ""},
		{"malformed", []string{good, "site.conf\t-\t-N2"}, nil, 2, nil, "t.tsv:2:"},
		{"bad expectation", []string{"site.conf\t-\t-N2\tREJECT:sometimes"}, nil, 2, nil, "t.tsv:1:"},
		{"unknown flag", []string{good}, []string{"--frobnicate"}, 2, nil, "unknown option --frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := checkTable(t, tc.lines...)
			code, out, errOut := runCmd(t, append([]string{"check", path}, tc.args...)...)
			assert.Equal(t, tc.code, code, "stdout %s\nstderr %s", out, errOut)
			for _, s := range tc.stdout {
				assert.Contains(t, out, s)
			}
			if tc.stderr != "" {
				assert.Contains(t, errOut, tc.stderr)
				assert.Empty(t, out, "errors go to stderr, never stdout")
			}
		})
	}
}

func TestCheckJSONAndRecord(t *testing.T) {
	path := checkTable(t, "site.conf\t-\t-N2\told[1-2]", "site.conf\told[1-4]\t-N2\told[1-2]")
	rec := filepath.Join(filepath.Dir(path), "today.tsv")
	code, out, _ := runCmd(t, "check", "--json", "--record", rec, path)
	assert.Equal(t, 1, code)
	var got checkOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got), "--json prints JSON only: %s", out)
	assert.Equal(t, 1, got.Passed)
	assert.Equal(t, 1, got.Failed)
	assert.Equal(t, "new[1-2]", got.Results[1].Got)
	recorded, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.Contains(t, string(recorded), "site.conf\told[1-4]\t-N2\tnew[1-2]")
	code, out, _ = runCmd(t, "check", rec)
	assert.Equal(t, 0, code, "a recorded table passes against the same conf: %s", out)
	code, _, errOut := runCmd(t, "check", "--record", rec, path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "exists", "nothing is silently overwritten")
}
