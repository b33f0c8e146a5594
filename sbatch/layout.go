package sbatch

import (
	"errors"
	"strconv"
	"strings"
)

// Layout is how a job's tasks sit on the sockets, cores and threads of a
// node: sbatch's --hint, --ntasks-per-socket, --ntasks-per-core and
// --threads-per-core. Zero values mean "not given". They are read and
// checked here and carried in Options; the selection model counts CPUs
// (select/cons_tres with CR_Core on nodes of one thread per core), so a
// caller modelling hyperthreaded nodes reads them from Options.
type Layout struct {
	// Hint is one of nomultithread, multithread, compute_bound or
	// memory_bound (lower case).
	Hint           string
	TasksPerSocket int // --ntasks-per-socket
	TasksPerCore   int // --ntasks-per-core
	ThreadsPerCore int // --threads-per-core
}

// hints are the values sbatch 22.05 takes for --hint (besides "help").
var hints = [...]string{"nomultithread", "multithread", "compute_bound", "memory_bound"}

func (l *Layout) setHint(v string) error {
	h := strings.ToLower(strings.TrimSpace(v))
	for _, ok := range hints {
		if h == ok {
			l.Hint = h
			return nil
		}
	}
	return errors.New(strconv.Quote(v) + " is not nomultithread, multithread, compute_bound or memory_bound")
}

// setMem reads --mem: a size per node, or 0 for all the memory of each
// node (sbatch's --mem=0, Request.WholeMemory).
func setMem(o *Options, v string) error {
	if err := memory(&o.MemoryMB, v); err != nil {
		return err
	}
	o.WholeMemory = o.MemoryMB == 0
	return nil
}
