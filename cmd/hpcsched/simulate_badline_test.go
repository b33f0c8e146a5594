package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bad line is named with its trace wherever it stands: the first job is
// read when the trace is opened, later ones as the replay submits them.
func TestSimulateNamesTheTraceOfABadLine(t *testing.T) {
	good := "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	bad := "9 6 0 99999999999999999999 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	for _, tc := range []struct {
		name, body string
		line       string
	}{
		{"first", "; MaxNodes: 4\n" + bad, "line 2:"},
		{"later", "; MaxNodes: 4\n" + good + good + bad, "line 4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.swf")
			require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o600))
			code, _, errOut := runCmd(t, "simulate", "--workload", path, "-q")
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, path+": swf: "+tc.line)
		})
	}
}
