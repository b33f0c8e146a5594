package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func nymfe(t *testing.T, swapped bool) string {
	lines := []string{"NodeName=nymfe[71-72] Feature=A", "NodeName=nymfe[73-74] Feature=A,B"}
	if swapped {
		lines[0], lines[1] = lines[1], lines[0]
	}
	path := filepath.Join(t.TempDir(), "slurm.conf")
	conf := strings.Join(lines, "\n") + "\nPartitionName=debug Nodes=nymfe[71-74] Default=YES\n"
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o644))
	return path
}

// The count-feature example of the Novotný thesis (§3.3) through the CLI: Slurm 22.05
// (--slurm-compat) rejects it in one line order and accepts it in the
// other; the default accepts it in both.
func TestExplainSection33(t *testing.T) {
	for _, tt := range []struct {
		swapped, compat bool
		code            int
		class, nodes    string
	}{
		{false, true, 1, "node_config", ""},
		{true, true, 0, "", "nymfe[73-74]"},
		{false, false, 0, "", "nymfe[73-74]"},
		{true, false, 0, "", "nymfe[73-74]"},
	} {
		args := []string{"explain", "--conf", nymfe(t, tt.swapped), "-N", "2", "-C", "A*1&B*2", "--json"}
		if tt.compat {
			args = append(args, "--slurm-compat")
		} else {
			args[6] = "[A*1&B*2]"
		}
		code, out, _ := runCmd(t, args...)
		assert.Equal(t, tt.code, code, out)
		var got explainJSON
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.Equal(t, tt.class, got.Class)
		assert.Equal(t, tt.nodes, got.Nodes)
		assert.Equal(t, tt.code == 0, got.Runnable)
		// the structured explanation: node sets with weight and features,
		// grouped as Slurm groups them, and the counts asked
		require.Len(t, got.Sets, 2, out)
		assert.NotEmpty(t, got.Groups, out)
		assert.Contains(t, got.Sets[0].Features, "A", out)
		assert.Equal(t, 2, got.Counts.Min, out)
	}
}

func TestExplainErrorsAndBusy(t *testing.T) {
	conf := nymfe(t, false)
	code, _, errOut := runCmd(t, "explain", "--conf", conf, "-C", "A&&B")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "offset 2")
	code, _, errOut = runCmd(t, "explain", "--conf", conf, "-C", "gpu")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no node has feature "gpu"`)
	code, _, _ = runCmd(t, "explain")
	assert.Equal(t, 2, code)
	code, out, _ := runCmd(t, "explain", "--conf", conf, "-N", "3", "--busy", "nymfe[71-72]")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "result: busy")
	code, out, _ = runCmd(t, "explain", "--conf", conf, "-N", "1-2", "-x", "nymfe71", "--exclusive", "--mem", "1")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "runnable on nymfe72")
	code, _, _ = runCmd(t, "explain", "--conf", conf, "-N", "x")
	assert.Equal(t, 2, code)
}

func TestHostlistCommand(t *testing.T) {
	code, out, _ := runCmd(t, "hostlist", "expand", "tux[1-3]")
	assert.Equal(t, 0, code)
	assert.Equal(t, "tux1\ntux2\ntux3\n", out)
	_, out, _ = runCmd(t, "hostlist", "compress", "b1", "b2", "b3", "c1")
	assert.Equal(t, "b[1-3],c1\n", out)
	_, out, _ = runCmd(t, "hostlist", "count", "tux[0-5,12]")
	assert.Equal(t, "7\n", out)
	code, _, errOut := runCmd(t, "hostlist", "expand", "tux[5-3]")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "descending")
	code, _, _ = runCmd(t, "nope")
	assert.Equal(t, 2, code)
}

// explainJSON decodes what explain --json prints (the fields tests read).
type explainJSON struct {
	Runnable  bool     `json:"runnable"`
	Nodes     string   `json:"nodes"`
	Partition string   `json:"partition"`
	Class     string   `json:"class"`
	Reason    string   `json:"reason"`
	Mode      string   `json:"mode"`
	Reasons   []string `json:"reasons"`
	Counts    struct {
		Min, Desired, Max, CPUs int
	} `json:"counts"`
	Sets []struct {
		Nodes    string   `json:"nodes"`
		Weight   int64    `json:"weight"`
		Features []string `json:"features"`
		Usable   int      `json:"usable"`
		Removed  []struct {
			Filter string `json:"filter"`
			Count  int    `json:"count"`
		} `json:"removed"`
	} `json:"sets"`
	Groups []struct {
		Nodes string `json:"nodes"`
	} `json:"groups"`
}
