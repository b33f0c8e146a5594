package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace whose header does not size the cluster (Alea's ship a .machines
// file instead) is refused with the flags that would size it, naming the
// .machines file beside the trace when there is one: "X.swf.machines"
// serves "X.swf" and "X.swf.gz" alike.
func TestHeaderlessTraceNamesTheMachinesFile(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("1 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644))
	code, _, errOut := runCmd(t, "simulate", "--workload", trace, "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "neither MaxNodes nor MaxProcs: pass --machines FILE (an Alea .machines file) or --conf slurm.conf\n")

	machines := trace + ".machines"
	require.NoError(t, os.WriteFile(machines, []byte("0\tzewura\t2\t8\t1\t1000\n"), 0o644))
	for _, w := range []string{trace, gzipped(t, trace)} {
		code, _, errOut = runCmd(t, "simulate", "--workload", w, "-q")
		assert.Equal(t, 2, code, w)
		assert.Contains(t, errOut, machines+" is beside it", w)
		code, out, errOut := runCmd(t, "simulate", "--workload", w, "--machines", machines, "-q")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "1 (1/0/0)", w)
	}
}

// gzipped writes path's gzip beside it (path + ".gz") and returns its path.
func gzipped(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path+".gz", buf.Bytes(), 0o644))
	return path + ".gz"
}
