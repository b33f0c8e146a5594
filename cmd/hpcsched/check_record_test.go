package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A recording written in another folder than its table names the same
// configurations (their paths moved to the recording's folder), and a
// case that could not run keeps its expectation after a comment saying
// why: running check on the recording gives today's answers again.
func TestCheckRecordElsewhere(t *testing.T) {
	path := checkTable(t, "site.conf\t-\t-N2\told[1-2]", "site.conf\t-\t-N2 -C new\told[1-2]",
		"missing.conf\t-\t-N1\tREJECT")
	rec := filepath.Join(t.TempDir(), "today.tsv")
	code, _, _ := runCmd(t, "check", "--record", rec, path)
	assert.Equal(t, 1, code)
	recorded, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.Contains(t, string(recorded), "# could not run: ERROR: ")
	assert.Contains(t, string(recorded), "missing.conf\t-\t-N1\tREJECT", "the expectation as it was")
	code, out, errOut := runCmd(t, "check", rec)
	assert.Equal(t, 1, code, "%s%s", out, errOut)
	assert.Contains(t, out, "2 passed, 1 failed", "the two that ran pass; the one that could not run still cannot")
}
