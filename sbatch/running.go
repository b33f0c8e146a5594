package sbatch

import (
	"errors"
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
func ParseRunning(s string) (Running, error) {
	hl, attrs, _ := strings.Cut(s, ":")
	if len(s) > MaxArgBytes {
		return Running{}, errors.New("running spec longer than MaxArgBytes")
	}
	names, err := hostlist.Expand(hl)
	if err != nil {
		return Running{}, err
	}
	if len(names) == 0 {
		return Running{}, errors.New("running spec " + strconv.Quote(s) + " names no nodes")
	}
	r := Running{Nodes: names}
	if attrs == "" {
		return r, nil
	}
	for _, kv := range strings.Split(attrs, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return r, errors.New("running spec: " + strconv.Quote(kv) + " is not key=value")
		}
		if err := r.set(k, v); err != nil {
			return r, errors.New("running spec: " + k + ": " + err.Error())
		}
	}
	return r, nil
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
