package slurmconf

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nil source or option is an error naming the function, never a nil
// dereference.
func TestNilArguments(t *testing.T) {
	fsys := fstest.MapFS{"slurm.conf": {Data: []byte("NodeName=n1\n")}}
	var nilFS fs.FS
	conf := func() *strings.Reader { return strings.NewReader("NodeName=n1\n") }
	tests := []struct {
		name, fn string
		call     func() error
	}{
		{"Parse nil reader", "slurmconf.Parse", func() error { _, err := Parse(nil); return err }},
		{"ParseFile nil fs", "slurmconf.ParseFile", func() error { _, err := ParseFile(nilFS, "slurm.conf"); return err }},
		{"ParseGres nil reader", "slurmconf.ParseGres", func() error { _, err := ParseGres(nil); return err }},
		{"ParseGresFile nil fs", "slurmconf.ParseGresFile", func() error { _, err := ParseGresFile(nil, "gres.conf"); return err }},
		{"ParseTopology nil reader", "slurmconf.ParseTopology", func() error { _, err := ParseTopology(nil); return err }},
		{"ParseTopologyFile nil fs", "slurmconf.ParseTopologyFile", func() error { _, err := ParseTopologyFile(nil, "t.conf"); return err }},
		{"Parse nil option", "option 1 is nil", func() error { _, err := Parse(conf(), WithLimits(Limits{}), nil); return err }},
		{"ParseFile nil option", "option 0 is nil", func() error { _, err := ParseFile(fsys, "slurm.conf", nil); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = tt.call() })
			require.ErrorIs(t, err, ErrNilArgument)
			assert.Contains(t, err.Error(), tt.fn)
		})
	}
}

// The zero Config is an empty configuration: its methods answer without
// a nil dereference.
func TestZeroConfig(t *testing.T) {
	var c Config
	assert.NoError(t, c.Validate())
	assert.Equal(t, 0, c.NodeCount())
	_, ok := c.Node("n1")
	assert.False(t, ok)
	_, ok = c.Get("ClusterName")
	assert.False(t, ok)
	assert.Empty(t, c.PartitionNodes(&PartitionLine{AllNodes: true}))
}

// A nil Config defines no node: its order, names and count are empty, not
// a nil dereference.
func TestNilConfigHasNoNodes(t *testing.T) {
	var c *Config
	assert.Empty(t, c.NodeNames())
	assert.Zero(t, c.NodeCount())
	for range c.NodeOrder() {
		t.Fatal("a nil Config yielded a node")
	}
}

// A nil *Config, what a failed Parse returns, reads as the empty
// configuration; Get, SchedulerParameter and Node dereferenced it. Its
// Validate is an ErrNilArgument, not a pass.
func TestNilConfigReadsEmpty(t *testing.T) {
	var c *Config
	_, ok := c.Get("SelectType")
	assert.False(t, ok)
	_, ok = c.SchedulerParameter("bf_window")
	assert.False(t, ok)
	_, ok = c.Node("n1")
	assert.False(t, ok)
	assert.Zero(t, c.NodeCount())
	assert.Empty(t, c.NodeNames())
	for range c.NodeOrder() {
		t.Fatal("a nil Config has no node")
	}
	assert.ErrorIs(t, c.Validate(), ErrNilArgument)
}
