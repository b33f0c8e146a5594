package check

import (
	"errors"
	"fmt"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/sbatch"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// Options says how a site is read and answered.
type Options struct {
	// SlurmCompat answers as Slurm 22.05 does.
	SlurmCompat bool
	// Now is the moment the load is described at (the zero Time is a fixed
	// instant, so answers do not depend on the clock).
	Now time.Time
	// ConfDir, for tables, is where conf paths are relative to when set
	// (placementtest.ConfDir); Runner.Dir otherwise.
	ConfDir string
	// Cluster holds further options for the cluster (a topology, a
	// selector), applied after the compatibility mode.
	Cluster []selectnodes.Option
}

// Site is a configuration with a load.
type Site struct {
	Cluster *selectnodes.Cluster
	opts    Options
	now     time.Time
	nextID  selectnodes.JobID
	resv    []reservation
	gres    map[string]bool // "name" and "name:type" some node has; built on first use
}

type reservation struct {
	nodes    *bitset.BitSet
	from, to time.Time
}

// defaultNow is Now's default: a fixed instant.
func defaultNow() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// NewSite builds a site from a parsed configuration, with no load.
func NewSite(cfg *slurmconf.Config, opts Options) (*Site, error) {
	if cfg == nil {
		return nil, errors.New("check: NewSite: nil *slurmconf.Config")
	}
	var sopts []selectnodes.Option
	if opts.SlurmCompat {
		sopts = append(sopts, selectnodes.WithSlurmCompat())
	}
	sopts = append(sopts, opts.Cluster...)
	c, err := selectnodes.FromConfig(cfg, sopts...)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = defaultNow()
	}
	return &Site{Cluster: c, opts: opts, now: now, nextID: 1}, nil
}

// Now is the moment the site's load is described at.
func (s *Site) Now() time.Time { return s.now }

// errNotMade is what a Site's methods say when it was not made by NewSite
// (a nil or zero Site has no cluster to answer from).
var errNotMade = errors.New("check: a Site not made by NewSite")

// made says whether s came from NewSite, which starts job IDs at 1.
func (s *Site) made() bool { return s != nil && s.Cluster != nil && s.nextID > 0 }

// Run places a running job described by an sbatch.Running spec. Its ID
// is above every job on the Cluster, so a load put there by other means
// first (a queue.Restore, a slurmstate State) does not collide with it.
func (s *Site) Run(spec string) error {
	if !s.made() {
		return errNotMade
	}
	r, err := sbatch.ParseRunning(spec)
	if err != nil {
		return err
	}
	if ids := s.Cluster.Running(); len(ids) > 0 && ids[len(ids)-1] >= s.nextID {
		s.nextID = ids[len(ids)-1] + 1
	}
	if err := r.Place(s.Cluster, s.nextID, s.now); err != nil {
		return fmt.Errorf("running %s: %w", spec, err)
	}
	s.nextID++
	return nil
}

// SetState sets the nodes of a hostlist down, drained or up. A name the
// cluster lacks is an error before any node changes.
func (s *Site) SetState(hl string, st selectnodes.NodeState) error {
	if !s.made() {
		return errNotMade
	}
	names, err := hostlist.Expand(hl)
	if err != nil {
		return err
	}
	if _, err := s.Cluster.NodeSet(names); err != nil {
		return err
	}
	for _, n := range names {
		if err := s.Cluster.SetNodeState(n, st); err != nil {
			return err
		}
	}
	return nil
}

// Reserve withholds the nodes of a hostlist from every request whose run
// would overlap [from, to), as an advance reservation does. A window that
// does not end after it starts is an error: it would withhold nothing.
func (s *Site) Reserve(hl string, from, to time.Time) error {
	if !s.made() {
		return errNotMade
	}
	if !to.After(from) {
		return fmt.Errorf("reservation of %s: ends at %s, not after its start at %s", hl,
			to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	names, err := hostlist.Expand(hl)
	if err != nil {
		return err
	}
	set, err := s.Cluster.NodeSet(names)
	if err != nil {
		return err
	}
	s.resv = append(s.resv, reservation{set, from, to})
	return nil
}

// featureOptions are the constraint grammar's options for this site.
func (s *Site) featureOptions() []features.Option {
	if s.opts.SlurmCompat {
		return []features.Option{features.Legacy()}
	}
	return nil
}
