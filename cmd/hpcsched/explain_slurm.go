package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/slurmstate"
)

// slurmStateTime sets the site's moment to when --from-slurm's nodes.txt
// was written, so the jobs' end times and the reservations are read
// against it.
func (f *explainFlags) slurmStateTime(opts *check.Options) error {
	if f.fromSlurm == "" {
		return nil
	}
	info, err := os.Stat(filepath.Join(f.fromSlurm, slurmstate.NodesFile))
	if err != nil {
		return usagef("--from-slurm: %v", err)
	}
	opts.Now = info.ModTime()
	return nil
}

// loadSlurmState puts the live state of --from-slurm on the site: node
// states, running jobs, reservations (times in the local time zone, as
// the login node printed them).
func (f *explainFlags) loadSlurmState(site *check.Site) error {
	if f.fromSlurm == "" {
		return nil
	}
	st, err := slurmstate.ReadDir(os.DirFS(f.fromSlurm), time.Local, slurmstate.Limits{})
	if err != nil {
		return usagef("--from-slurm %s: %v", f.fromSlurm, err)
	}
	if _, err := st.LoadSite(site); err != nil {
		return usagef("--from-slurm %s: %v", f.fromSlurm, err)
	}
	return nil
}
