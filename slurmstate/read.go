package slurmstate

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// The files ReadDir reads, as Command writes them.
const (
	NodesFile        = "nodes.txt"
	JobsFile         = "jobs.txt"
	ReservationsFile = "reservations.txt"
)

// ReadDir reads the files Command wrote into a folder of fsys (os.DirFS
// for a path): nodes.txt is required, jobs.txt and reservations.txt may be
// absent (no jobs, no reservations). Times are in loc (nil is UTC).
func ReadDir(fsys fs.FS, loc *time.Location, lim Limits) (*State, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: slurmstate.ReadDir: nil fs.FS", selectnodes.ErrNilArgument)
	}
	st := &State{}
	f, err := fsys.Open(NodesFile)
	if err != nil {
		return nil, err
	}
	st.Nodes, err = ParseNodes(f, NodesFile, lim)
	f.Close()
	if err != nil {
		return nil, err
	}
	if f, err = fsys.Open(JobsFile); err == nil {
		st.Jobs, err = ParseJobs(f, JobsFile, loc, lim)
		f.Close()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if f, err = fsys.Open(ReservationsFile); err == nil {
		st.Reservations, err = ParseReservations(f, ReservationsFile, loc, lim)
		f.Close()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return st, nil
}
