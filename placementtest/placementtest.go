package placementtest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Option configures Load.
type Option func(*check.Options)

// SlurmCompat answers as Slurm 22.05 does (its greedy count features and
// first-listed matching-OR alternative).
func SlurmCompat() Option { return func(o *check.Options) { o.SlurmCompat = true } }

// ConfDir makes RunTable read conf paths relative to dir instead of the
// table's folder.
func ConfDir(dir string) Option { return func(o *check.Options) { o.ConfDir = dir } }

// At sets the moment the load is described at (a fixed instant by
// default).
func At(now time.Time) Option { return func(o *check.Options) { o.Now = now } }

// Site is a slurm.conf with a load, for assertions.
type Site struct{ s *check.Site }

// Load reads the slurm.conf at path (Include lines resolved beside it).
func Load(t testing.TB, path string, opts ...Option) *Site {
	t.Helper()
	var o check.Options
	for _, f := range opts {
		f(&o)
	}
	cfg, err := check.ReadConfig(path)
	if err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	s, err := check.NewSite(cfg, o)
	if err != nil {
		t.Fatalf("placementtest: %s: %v", path, err)
	}
	return &Site{s}
}

// Cluster is the site's cluster, for anything the sentences do not cover.
func (s *Site) Cluster() *selectnodes.Cluster { return s.s.Cluster }

// Running adds a running job: "HOSTLIST" takes whole nodes,
// "HOSTLIST:cpus=8,mem=16G,gpus=2,end=2h" part of each (package sbatch's
// Running spec).
func (s *Site) Running(t testing.TB, spec string) *Site {
	t.Helper()
	if err := s.s.Run(spec); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Down sets the nodes of a hostlist down.
func (s *Site) Down(t testing.TB, hl string) *Site { return s.state(t, hl, selectnodes.NodeDown) }

// Drain drains the nodes of a hostlist.
func (s *Site) Drain(t testing.TB, hl string) *Site { return s.state(t, hl, selectnodes.NodeDrain) }

func (s *Site) state(t testing.TB, hl string, st selectnodes.NodeState) *Site {
	t.Helper()
	if err := s.s.SetState(hl, st); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Reserve withholds a hostlist for [from, from+length), as an advance
// reservation does: requests whose run would overlap it do not get those
// nodes.
func (s *Site) Reserve(t testing.TB, hl string, from time.Time, length time.Duration) *Site {
	t.Helper()
	if err := s.s.Reserve(hl, from, from.Add(length)); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Now is the moment the load is described at.
func (s *Site) Now() time.Time { return s.s.Now() }

// Request states a request in sbatch's words ("-N2 -p gpu --gres=gpu:4 -C ib").
func (s *Site) Request(t testing.TB, line string) *Request {
	t.Helper()
	now, err := s.s.Ask(line)
	if err != nil {
		t.Fatalf("placementtest: request %q: %v", line, err)
	}
	return &Request{site: s, line: line, now: now}
}

// RunTable runs a table of cases (package check's format) as subtests,
// one per line, each failing with its explanation. Conf paths are
// relative to the table's folder.
func RunTable(t *testing.T, path string, opts ...Option) {
	t.Helper()
	var o check.Options
	for _, f := range opts {
		f(&o)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	defer f.Close()
	cases, err := check.ReadTable(f, path)
	if err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	dir := filepath.Dir(path)
	if o.ConfDir != "" {
		dir = o.ConfDir
	}
	r := &check.Runner{Dir: dir, Options: o}
	for _, c := range cases {
		t.Run(filepath.Base(path)+":"+strconv.Itoa(c.Line), func(t *testing.T) {
			res := r.Run(c)
			if !res.Pass {
				t.Errorf("%s | %s | %s: want %s, got %s%s", c.Conf, c.Load, c.Request, c.Expected, res.Got, explain(res.Answer))
			}
		})
	}
}
