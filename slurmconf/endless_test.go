package slurmconf

import (
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless repeats its pattern forever.
type endless struct {
	pattern string
	at      int
	read    int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[e.at]
		e.at = (e.at + 1) % len(e.pattern)
	}
	e.read += int64(len(p))
	return len(p), nil
}

// endlessFS serves name as an endless file and the rest from files.
type endlessFS struct {
	files   fstest.MapFS
	name    string
	pattern string
	src     *endless
}

func (f *endlessFS) Open(name string) (fs.File, error) {
	if name != f.name {
		return f.files.Open(name)
	}
	f.src = &endless{pattern: f.pattern}
	return endlessFile{f.src}, nil
}

type endlessFile struct{ io.Reader }

func (endlessFile) Stat() (fs.FileInfo, error) { return endlessInfo{}, nil }
func (endlessFile) Close() error               { return nil }

type endlessInfo struct{}

func (endlessInfo) Name() string       { return "endless" }
func (endlessInfo) Size() int64        { return 0 }
func (endlessInfo) Mode() fs.FileMode  { return 0o444 }
func (endlessInfo) ModTime() time.Time { return time.Time{} }
func (endlessInfo) IsDir() bool        { return false }
func (endlessInfo) Sys() any           { return nil }

// An endless input (/dev/zero, an endless stream of lines) ends with a
// budget error at its position while it is read: the line-length cap
// stops a line without end after MaxLineLength bytes, the input budget an
// endless stream of short lines, and the kept-pair and record budgets an
// input whose records cost far more than their text.
func TestEndlessInputStopsWhileReading(t *testing.T) {
	tests := []struct {
		name, pattern, limit string
		lim                  Limits
		line, column         int
		maxRead              int64
	}{
		{"zeros", "\x00", "MaxLineLength", Limits{}, 1, 1, MaxLineLength + 2 + 64<<10},
		{"one long line", "x", "MaxLineLength", Limits{}, 1, 1, MaxLineLength + 2 + 64<<10},
		{"blank lines", "\n", "Limits.InputBytes", Limits{InputBytes: 1 << 20}, 1<<20 + 1, 1, 1<<20 + 64<<10},
		{"params", "A=1\n", "1000 key=value pairs kept (Limits.Pairs)", Limits{Pairs: 1000}, 1001, 1, 0},
		{"partitions", "PartitionName=p\n", "100 records other than nodes (Limits.Records)", Limits{Records: 100}, 101, 1, 0},
		{"unmodelled node keys", "NodeName=DEFAULT A=1 B=2\n", "(Limits.Pairs)", Limits{Pairs: 1000}, 501, 18, 0},
		{"default pairs budget", "A=1\n", "1048576 key=value pairs kept (Limits.Pairs)", Limits{}, DefaultMaxPairs + 1, 1, 0},
	}
	parsers := map[string]func(io.Reader, Option) error{
		"slurm.conf":    func(r io.Reader, o Option) error { _, err := Parse(r, o); return err },
		"gres.conf":     func(r io.Reader, o Option) error { _, err := ParseGres(r, o); return err },
		"topology.conf": func(r io.Reader, o Option) error { _, err := ParseTopology(r, o); return err },
	}
	for _, tt := range tests {
		for kind, parse := range parsers {
			if (strings.Contains(tt.pattern, "Name=") || tt.name == "default pairs budget") && kind != "slurm.conf" {
				continue // those keys mean something to slurm.conf only
			}
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				if tt.lim == (Limits{}) && tt.name == "default pairs budget" && testing.Short() {
					t.Skip("two million lines: not with -short")
				}
				src := &endless{pattern: tt.pattern}
				err := parse(src, WithLimits(tt.lim))
				e := requireBudget(t, err, tt.line, tt.limit)
				assert.Equal(t, tt.column, e.Pos.Column)
				if tt.maxRead > 0 {
					assert.LessOrEqual(t, src.read, tt.maxRead, "reading stops at the budget")
				}
			})
		}
	}
}

// An endless Include is stopped the same way, at its own position.
func TestEndlessInclude(t *testing.T) {
	fsys := &endlessFS{files: fstest.MapFS{"etc/slurm.conf": {Data: []byte("ClusterName=c\nInclude zero\n")}},
		name: "etc/zero", pattern: "\x00"}
	_, err := ParseFile(fsys, "etc/slurm.conf")
	e := requireBudget(t, err, 1, "MaxLineLength")
	assert.Equal(t, "etc/zero", e.Pos.File)
	assert.LessOrEqual(t, fsys.src.read, int64(MaxLineLength+2+64<<10))

	fsys.name, fsys.pattern = "etc/gres.conf", "\x00"
	_, err = ParseGresFile(fsys, "etc/gres.conf")
	requireBudget(t, err, 1, "MaxLineLength")
	fsys.name = "etc/topology.conf"
	_, err = ParseTopologyFile(fsys, "etc/topology.conf")
	requireBudget(t, err, 1, "MaxLineLength")
}

// The real /dev/zero, as every kind of file.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dev := os.DirFS("/dev")
	for name, parse := range map[string]func() error{
		"slurm.conf":    func() error { _, err := ParseFile(dev, "zero"); return err },
		"gres.conf":     func() error { _, err := ParseGresFile(dev, "zero"); return err },
		"topology.conf": func() error { _, err := ParseTopologyFile(dev, "zero"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := parse()
			e := requireBudget(t, err, 1, "MaxLineLength")
			assert.Equal(t, "zero", e.Pos.File)
			require.Less(t, time.Since(start), time.Minute) // a hang guard, not a timing claim
		})
	}
}
