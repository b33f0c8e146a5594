package placementtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
)

// Option configures Load and RunTable.
type Option func(*settings)

// settings are check's options and where Load finds the topology.
type settings struct {
	check.Options
	topology   string // a topology.conf to read instead of the one beside the slurm.conf
	noTopology bool
	lenient    bool
}

func newSettings(opts []Option) settings {
	var o settings
	for _, f := range opts {
		f(&o)
	}
	return o
}

// SlurmCompat answers as Slurm 22.05 does (its greedy count features and
// first-listed matching-OR alternative).
func SlurmCompat() Option { return func(o *settings) { o.SlurmCompat = true } }

// ConfDir makes RunTable read conf paths relative to dir instead of the
// table's folder.
func ConfDir(dir string) Option { return func(o *settings) { o.ConfDir = dir } }

// At sets the moment the load is described at (a fixed instant by
// default).
func At(now time.Time) Option { return func(o *settings) { o.Now = now } }

// WithTopology makes Load read the topology.conf at path instead of the
// one beside the slurm.conf.
func WithTopology(path string) Option { return func(o *settings) { o.topology = path } }

// NoTopology makes Load ignore a topology.conf beside the slurm.conf: the
// site is placed as without TopologyPlugin=topology/tree.
func NoTopology() Option { return func(o *settings) { o.noTopology = true } }

// LenientTopology accepts what Slurm only logs in a topology.conf (node
// names the slurm.conf lacks, a node under two leaf switches), as
// topology.Lenient does; by default Load refuses them.
func LenientTopology() Option { return func(o *settings) { o.lenient = true } }

// Site is a slurm.conf with a load, for assertions.
type Site struct{ s *check.Site }

// Load reads the slurm.conf at path (Include lines resolved beside it)
// and, unless NoTopology is given, the topology.conf beside it
// ("topology.conf", or "<site>.topology.conf" for "<site>.slurm.conf")
// or the one WithTopology names: with one, placement is topology-aware
// (topology/tree).
func Load(t testing.TB, path string, opts ...Option) *Site {
	t.Helper()
	o := newSettings(opts)
	cfg, err := check.ReadConfig(path)
	if err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	topoPath := o.topologyPath(path)
	if topoPath != "" {
		top, err := slurmconf.ParseTopologyFile(os.DirFS(filepath.Dir(topoPath)), filepath.Base(topoPath))
		if err != nil {
			t.Fatalf("placementtest: %v", err)
		}
		var topts []topology.Option
		if o.lenient {
			topts = append(topts, topology.Lenient())
		}
		o.Cluster = append(o.Cluster, selectnodes.WithTopologyConfig(top, topts...))
	}
	s, err := check.NewSite(cfg, o.Options)
	switch {
	case err != nil && topoPath != "" && !o.lenient:
		t.Fatalf("placementtest: %s with %s: %v\n(placementtest.LenientTopology() accepts what Slurm only logs, "+
			"as topology.Lenient() does; NoTopology() ignores the file)", path, topoPath, err)
	case err != nil:
		t.Fatalf("placementtest: %s: %v", path, err)
	}
	return &Site{s}
}

// topologyPath is the topology.conf Load reads for the slurm.conf at
// path, "" for none.
func (o *settings) topologyPath(path string) string {
	if o.noTopology {
		return ""
	}
	if o.topology != "" {
		return o.topology
	}
	dir, base := filepath.Split(path)
	site, _, _ := strings.Cut(base, ".")
	for _, name := range []string{"topology.conf", site + ".topology.conf"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// Cluster is the site's cluster, for anything the sentences do not cover
// (nil for a Site not made by Load).
func (s *Site) Cluster() *selectnodes.Cluster {
	if s == nil || s.s == nil {
		return nil
	}
	return s.s.Cluster
}

// Running adds a running job: "HOSTLIST" takes whole nodes,
// "HOSTLIST:cpus=8,mem=16G,gpus=2,end=2h" part of each (package sbatch's
// Running spec).
func (s *Site) Running(t testing.TB, spec string) *Site {
	t.Helper()
	if err := s.made(t).Run(spec); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Down sets the nodes of a hostlist down.
func (s *Site) Down(t testing.TB, hl string) *Site {
	t.Helper()
	return s.state(t, hl, selectnodes.NodeDown)
}

// Drain drains the nodes of a hostlist.
func (s *Site) Drain(t testing.TB, hl string) *Site {
	t.Helper()
	return s.state(t, hl, selectnodes.NodeDrain)
}

func (s *Site) state(t testing.TB, hl string, st selectnodes.NodeState) *Site {
	t.Helper()
	if err := s.made(t).SetState(hl, st); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Reserve withholds a hostlist for [from, from+length), as an advance
// reservation does: requests whose run would overlap it do not get those
// nodes. A length that is not positive stops the test.
func (s *Site) Reserve(t testing.TB, hl string, from time.Time, length time.Duration) *Site {
	t.Helper()
	if err := s.made(t).Reserve(hl, from, from.Add(length)); err != nil {
		t.Fatalf("placementtest: %v", err)
	}
	return s
}

// Now is the moment the load is described at (the zero Time for a Site
// not made by Load).
func (s *Site) Now() time.Time {
	if s == nil || s.s == nil {
		return time.Time{}
	}
	return s.s.Now()
}

// made is the site's check.Site, stopping the test when s was not made
// by Load (a zero or nil Site has nothing to answer from).
func (s *Site) made(t testing.TB) *check.Site {
	if s == nil || s.s == nil {
		t.Helper()
		t.Fatalf("placementtest: a Site not made by Load")
	}
	return s.s
}

// Request states a request in sbatch's words ("-N2 -p gpu --gres=gpu:4 -C ib").
func (s *Site) Request(t testing.TB, line string) *Request {
	t.Helper()
	now, err := s.made(t).Ask(line)
	if err != nil {
		t.Fatalf("placementtest: request %q: %v", line, err)
	}
	start := now
	if now.Err != nil {
		if start, err = s.s.WillRun(line); err != nil {
			t.Fatalf("placementtest: request %q: %v", line, err)
		}
	}
	return &Request{site: s, line: line, now: now, start: start}
}

// RunTable runs a table of cases (package check's format) as subtests,
// one per line, each failing with its explanation. Conf paths are
// relative to the table's folder.
func RunTable(t *testing.T, path string, opts ...Option) {
	t.Helper()
	o := newSettings(opts)
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
	r := &check.Runner{Dir: dir, Options: o.Options}
	for _, c := range cases {
		t.Run(filepath.Base(path)+":"+strconv.Itoa(c.Line), func(t *testing.T) {
			res := r.Run(c)
			if !res.Pass {
				t.Errorf("%s | %s | %s: want %s, got %s%s", c.Conf, c.Load, c.Request, c.Expected, res.Got, explain(res.Answer))
			}
		})
	}
}
