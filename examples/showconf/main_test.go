package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunSample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(out)
	require.NoError(t, err)
	require.NoError(t, run(f, "slurm.conf"))
	require.NoError(t, f.Close())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	text := string(data)
	assert.Contains(t, text, `cluster "sample": 72 nodes in 5 node lines, 5 partitions`)
	assert.Regexp(t, `nymfe\[73-74\]\s+2\s+32\s+192000\s+20\s+A,B`, text)
	assert.Regexp(t, `gpu\s+gpu\[01-04\]\s+4\s+false\s+UNLIMITED\s+UNLIMITED\s+YES:2`, text)
	assert.Equal(t, 1+1+6+1+6, strings.Count(text, "\n"), "summary, blank, 5 nodes+header, blank, 5 partitions+header")
}

func TestRunReportsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(path, []byte("NodeName=a\nPartitionName=p Nodes=b\n"), 0o644))
	err := run(os.Stdout, path)
	assert.ErrorContains(t, err, "slurm.conf:2:1: partition p: node b is not defined")
}
