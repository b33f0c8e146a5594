package placementtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/placementtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// siteWithTopology writes a slurm.conf of four nodes and, beside it under
// topoName, a tree whose leaves pair n1 with n3 and n2 with n4: with the
// tree -N2 takes one leaf (n1,n3), without it the first two nodes.
func siteWithTopology(t *testing.T, confName, topoName, extra string) string {
	dir := t.TempDir()
	conf := filepath.Join(dir, confName)
	require.NoError(t, os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"), 0o644))
	if topoName != "" {
		topo := "SwitchName=s1 Nodes=n1,n3\nSwitchName=s2 Nodes=n2,n4" + extra + "\nSwitchName=top Switches=s[1-2]\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, topoName), []byte(topo), 0o644))
	}
	return conf
}

// Load reads the topology.conf beside the slurm.conf (under either name
// Slurm sites use), or the one WithTopology names, unless NoTopology.
func TestLoadReadsTopologyBeside(t *testing.T) {
	cases := []struct {
		conf, topo string
		opts       func(dir string) []placementtest.Option
		want       string
	}{
		{"slurm.conf", "topology.conf", nil, "n[1,3]"},
		{"mysite.slurm.conf", "mysite.topology.conf", nil, "n[1,3]"},
		{"slurm.conf", "", nil, "n[1-2]"},
		{"slurm.conf", "topology.conf", func(string) []placementtest.Option {
			return []placementtest.Option{placementtest.NoTopology()}
		}, "n[1-2]"},
		{"slurm.conf", "elsewhere.conf", func(dir string) []placementtest.Option {
			return []placementtest.Option{placementtest.WithTopology(filepath.Join(dir, "elsewhere.conf"))}
		}, "n[1,3]"},
	}
	for _, c := range cases {
		t.Run(c.conf+"+"+c.topo, func(t *testing.T) {
			conf := siteWithTopology(t, c.conf, c.topo, "")
			var opts []placementtest.Option
			if c.opts != nil {
				opts = c.opts(filepath.Dir(conf))
			}
			placementtest.Load(t, conf, opts...).Request(t, "-N2").RunsOn(t, c.want)
		})
	}
}

// fatalTB records the first Fatalf and stops the test goroutine, as
// testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func loadFails(t *testing.T, conf string, opts ...placementtest.Option) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		placementtest.Load(tb, conf, opts...)
	}()
	<-done
	return tb.msg
}

// A topology.conf Slurm only warns about (a node the slurm.conf lacks) is
// refused, the message saying how to be lenient; LenientTopology loads it.
func TestTopologyErrorSaysHowToBeLenient(t *testing.T) {
	conf := siteWithTopology(t, "slurm.conf", "topology.conf", "\nSwitchName=s3 Nodes=ghost1")
	msg := loadFails(t, conf)
	assert.Contains(t, msg, "ghost1")
	assert.Contains(t, msg, "placementtest.LenientTopology()")
	assert.Contains(t, msg, "topology.Lenient()")
	assert.True(t, strings.HasPrefix(msg, "placementtest: "+conf), msg)
	assert.Empty(t, loadFails(t, conf, placementtest.LenientTopology()))
	assert.Empty(t, loadFails(t, conf, placementtest.NoTopology()))
}
