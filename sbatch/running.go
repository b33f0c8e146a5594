package sbatch

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// Running describes a job already running, to build a load:
// "HOSTLIST[:key=value,...]" with keys cpus (per node; whole nodes when
// absent), mem (per node, with units), gpus (per node), gres (name[:type]:count
// per node, repeatable with ';') and end (time left, in Slurm's time
// format; none when absent, i.e. it runs for ever).
type Running struct {
	Nodes    []string
	CPUs     int // per node; 0: the whole node
	MemoryMB int64
	GRES     []selectnodes.GRES
	End      time.Duration // from now; 0: no end
}

// ParseRunning reads one running-job spec, e.g. "n[1-2]:cpus=8,mem=16G,end=2h".
// A bad key or value is an *Error whose Offset is where it starts in s; a
// key given twice is one too, since the second would silently replace the
// first (gres takes several items separated by ';' instead).
func ParseRunning(s string) (Running, error) {
	hl, attrs, _ := strings.Cut(s, ":")
	if len(s) > MaxArgBytes {
		return Running{}, runningError(s, 0, "running spec longer than MaxArgBytes")
	}
	names, err := hostlist.Expand(hl)
	if err != nil {
		return Running{}, err
	}
	if len(names) == 0 {
		return Running{}, runningError(s, 0, "names no nodes")
	}
	r := Running{Nodes: names}
	if attrs == "" {
		return r, nil
	}
	var seen [5]bool // the keys given so far, by runningKey
	off := len(hl) + 1
	for _, kv := range strings.Split(attrs, ",") {
		k, v, ok := strings.Cut(kv, "=")
		switch i := runningKey(k); {
		case !ok:
			return r, runningError(s, off, strconv.Quote(kv)+" is not key=value")
		case i >= 0 && seen[i]:
			return r, runningError(s, off, k+" is given twice")
		case i >= 0:
			seen[i] = true
		}
		if err := r.set(k, v); err != nil {
			at := off + len(k) + 1 // the value
			if runningKey(k) < 0 {
				at = off
			}
			return r, runningError(s, at, k+": "+err.Error())
		}
		off += len(kv) + 1
	}
	return r, nil
}

// runningKey is the index of a running spec's key, -1 for none.
func runningKey(k string) int {
	return slices.Index([]string{"cpus", "mem", "gpus", "gres", "end"}, k)
}

// runningError is a bad running spec s at byte offset off.
func runningError(s string, off int, msg string) *Error {
	return &Error{Arg: -1, Offset: off, Text: s, Msg: "running spec " + strconv.Quote(s) + ": " + msg}
}

func (r *Running) set(k, v string) error {
	switch k {
	case "cpus":
		return count(&r.CPUs, v)
	case "mem":
		return memory(&r.MemoryMB, v)
	case "gpus":
		var n int
		if err := count(&n, v); err != nil {
			return err
		}
		r.GRES = append(r.GRES, selectnodes.GRES{Name: "gpu", Count: int64(n)})
	case "gres":
		for _, item := range strings.Split(v, ";") {
			g, err := gresCount(item)
			if err != nil {
				return err
			}
			r.GRES = append(r.GRES, g)
		}
	case "end":
		d, err := slurmconf.ParseDuration(v)
		if err != nil {
			if d, err = time.ParseDuration(v); err != nil || d <= 0 {
				return errors.New(strconv.Quote(v) + " is not a time (2h, 90m or 1-00:00:00)")
			}
		}
		if d == slurmconf.Unlimited {
			d = 0
		}
		r.End = d
	default:
		return errors.New("unknown key (cpus, mem, gpus, gres or end)")
	}
	return nil
}

// gresCount reads name[:type]:count.
func gresCount(s string) (selectnodes.GRES, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return selectnodes.GRES{}, errors.New(strconv.Quote(s) + " is not name[:type]:count")
	}
	n, err := strconv.ParseInt(parts[len(parts)-1], 10, 64)
	if err != nil || n < 1 || n > maxCount {
		return selectnodes.GRES{}, errors.New(strconv.Quote(s) + ": bad count")
	}
	g := selectnodes.GRES{Name: parts[0], Count: n}
	if len(parts) == 3 {
		g.Type = parts[1]
	}
	return g, nil
}
