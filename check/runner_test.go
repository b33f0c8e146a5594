package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Runner builds one site per configuration and load, not one per case,
// and the shared site answers every case as a fresh one would: asking
// changes nothing.
func TestRunnerBuildsEachSiteOnce(t *testing.T) {
	dir := t.TempDir()
	conf := "NodeName=n[1-4] CPUs=4 Feature=a\nNodeName=n[5-8] CPUs=4 Feature=b\nPartitionName=p Nodes=ALL Default=YES\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.conf"), []byte(conf), 0o644))
	cases := []Case{
		{Conf: "a.conf", Load: "-", Request: "-N2", Expected: "n[1-2]"},
		{Conf: "a.conf", Load: "-", Request: "-N2 -C b", Expected: "n[5-6]"},
		{Conf: "a.conf", Load: "n[1-3]", Request: "-N2", Expected: "n[4-5]"},
		{Conf: "a.conf", Load: "n[1-3]", Request: "-N5", Expected: "n[4-8]"},
		{Conf: "a.conf", Load: "-", Request: "-N8", Expected: "n[1-8]"},
		{Conf: "a.conf", Load: "n[1-3]", Request: "-N6", Expected: "REJECT:busy"},
	}
	r := &Runner{Dir: dir}
	for _, c := range cases {
		res := r.Run(c)
		assert.True(t, res.Pass, "%s | %s: got %s", c.Load, c.Request, res.Got)
		fresh := (&Runner{Dir: dir}).Run(c)
		assert.Equal(t, fresh.Got, res.Got, "%s | %s", c.Load, c.Request)
	}
	assert.Len(t, r.sites, 2, "one site per (conf, load)")
	s1, err := r.site("a.conf", "-")
	require.NoError(t, err)
	s2, err := r.site("a.conf", "-")
	require.NoError(t, err)
	assert.Same(t, s1, s2)
}

// A --begin after the site's Now is answered for then.
func TestAskHonoursBegin(t *testing.T) {
	dir := t.TempDir()
	conf := "NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.conf"), []byte(conf), 0o644))
	cfg, err := ReadConfig(filepath.Join(dir, "a.conf"))
	require.NoError(t, err)
	site, err := NewSite(cfg, Options{})
	require.NoError(t, err)
	require.NoError(t, site.Run("n[1-4]:end=2h"))
	a, err := site.Ask("-N4")
	require.NoError(t, err)
	assert.Equal(t, "busy", a.Class())
	a, err = site.Ask("-N4 --begin=now+3hours")
	require.NoError(t, err)
	require.NoError(t, a.Err)
	assert.Equal(t, site.Now().Add(3*60*60e9), a.Start)
	assert.Equal(t, a.Start, a.Begin)
	a, err = site.Ask("-N4 --begin=now+1hour") // the job ends at 2h: starts then
	require.NoError(t, err)
	require.NoError(t, a.Err)
	assert.Equal(t, site.Now().Add(2*60*60e9), a.Start)
}

// Errors name files as the caller wrote them, and bad input is an error,
// never a panic.
func TestBadInputErrors(t *testing.T) {
	_, err := NewSite(nil, Options{})
	assert.ErrorContains(t, err, "nil *slurmconf.Config")

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.slurm.conf")
	require.NoError(t, os.WriteFile(bad, []byte("NodeName=n[1-2] CPUs=x\n"), 0o644))
	_, err = ReadConfig(bad)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), bad+":"), err.Error())
	_, err = ReadConfig(filepath.Join(dir, "missing.conf"))
	assert.ErrorContains(t, err, filepath.Join(dir, "missing.conf")+": no such file")
	assert.ErrorIs(t, err, fs.ErrNotExist)

	long := strings.Repeat("x", MaxTableBytes+10)
	_, err = ReadTable(strings.NewReader("a.conf\t-\t-N1\tn1\n"+long), "t.tsv")
	assert.ErrorContains(t, err, "t.tsv:2:1: ")
	assert.ErrorContains(t, err, "than MaxTableBytes")
}
