package sbatch

import (
	"errors"

	"github.com/hpcsched/hpcsched/selectnodes"
	"strconv"
	"strings"
)

// Layout is how a job's tasks sit on the sockets, cores and threads of a
// node: sbatch's --hint, --ntasks-per-socket, --ntasks-per-core and
// --threads-per-core. Zero values mean "not given". Request maps them:
// --hint=nomultithread, --threads-per-core=1 and --ntasks-per-core=1 give
// each task CPU a whole core (selectnodes.Request.CoreTasks),
// --ntasks-per-socket bounds the CPUs per socket (MaxCPUsPerSocket); the
// other values (multithread, compute_bound, memory_bound, more threads or
// tasks per core) are read and carried, not modelled.
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

// apply sets the request's layout from the options, cpt CPUs per task.
func (l Layout) apply(r *selectnodes.Request, cpt int) {
	r.CoreTasks = l.Hint == "nomultithread" || l.ThreadsPerCore == 1 || l.TasksPerCore == 1
	if l.TasksPerSocket > 0 {
		r.MaxCPUsPerSocket = l.TasksPerSocket * cpt // both at most 2^24: no overflow in int64
	}
}
