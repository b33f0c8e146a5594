package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a site whose partitions allow only their own QOS a trace's jobs, which
// name none, are all refused as QOS normal; the refusal now points at
// --qos, which submits them under a QOS the site allows.
func TestSimulateQOS(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte("AccountingStorageType=accounting_storage/slurmdbd\nNodeName=n[1-4] CPUs=1\n"+
		"PartitionName=p Nodes=n[1-4] Default=YES AllowQOS=site,other\n"), 0o644))
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"2 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))

	code, out, errOut := runCmd(t, "simulate", "--workload", trace, "--conf", conf, "-q")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out+errOut, "2 jobs can never run")
	assert.Contains(t, out+errOut, "the job's is normal")
	assert.Contains(t, out+errOut, "hint: --qos NAME")

	code, out, errOut = runCmd(t, "simulate", "--workload", trace, "--conf", conf, "-q", "--qos", "site")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "2 (2/0/0)")
	assert.NotContains(t, out+errOut, "hint: --qos")

	// without accounting storage Slurm enforces no AllowQOS: the jobs run
	open := filepath.Join(dir, "open.conf")
	require.NoError(t, os.WriteFile(open, []byte("NodeName=n[1-4] CPUs=1\n"+
		"PartitionName=p Nodes=n[1-4] Default=YES AllowQOS=site,other\n"), 0o644))
	code, out, errOut = runCmd(t, "simulate", "--workload", trace, "--conf", open, "-q")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "2 (2/0/0)")

	code, _, errOut = runCmd(t, "simulate", "--workload", trace, "--qos", "site,other")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--qos "site,other": want one QOS name`)
}
