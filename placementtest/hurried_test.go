package placementtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/placementtest"
)

func fourNodes(t *testing.T) *placementtest.Site {
	t.Helper()
	path := filepath.Join(t.TempDir(), "slurm.conf")
	require.NoError(t, os.WriteFile(path, []byte("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"), 0o644))
	return placementtest.Load(t, path)
}

// A stated request is judged on the load it was stated on, by every
// assertion: a job added afterwards changes neither where it runs nor
// when it starts (state the request again to ask about the new load).
func TestStartsAtJudgesTheLoadTheRequestWasStatedOn(t *testing.T) {
	site := fourNodes(t)
	r := site.Request(t, "-N4")
	site.Running(t, "n[1-4]:end=1h")
	assert.True(t, r.RunsOn(t, "n[1-4]"))
	assert.True(t, r.StartsAt(t, site.Now()))
	assert.True(t, site.Request(t, "-N4").StartsAt(t, site.Now().Add(time.Hour)))

	busy := site.Request(t, "-N4")
	site.Down(t, "n1")
	assert.True(t, busy.StartsAt(t, site.Now().Add(time.Hour)), "n1 went down after the request was stated")
}

// A class name IsRejected does not know stops the test naming the
// classes: a typo would otherwise read as a wrong rejection reason.
func TestIsRejectedRefusesAnUnknownClass(t *testing.T) {
	site := fourNodes(t)
	tb := fatalOf(t, func(tb testing.TB) { site.Request(tb, "-N5").IsRejected(tb, "node-config") })
	assert.Contains(t, tb.msg, `"node-config" is not a class`)
	assert.Contains(t, tb.msg, "node_config")
	assert.True(t, site.Request(t, "-N5").IsRejected(t, "node_config"))
}

// A Site not made by Load stops the test with a message instead of a
// nil-pointer panic, and has no cluster.
func TestSiteNotMadeByLoad(t *testing.T) {
	var site placementtest.Site
	assert.Nil(t, site.Cluster())
	tb := fatalOf(t, func(tb testing.TB) { site.Request(tb, "-N1") })
	assert.Contains(t, tb.msg, "not made by Load")
	tb = fatalOf(t, func(tb testing.TB) { site.Down(tb, "n1") })
	assert.Contains(t, tb.msg, "not made by Load")
}

// RunsOn compares sets of nodes: a hostlist naming a node twice is the
// same set.
func TestRunsOnNamesASet(t *testing.T) {
	site := fourNodes(t)
	assert.True(t, site.Request(t, "-N2").RunsOn(t, "n[1-2],n1"))
	assert.True(t, site.Request(t, "-N2").RunsOn(t, "n2,n1,n2"))
}
