package slurmstate

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/position"
)

// SqueueFormat is the squeue output format ParseJobs reads: job id,
// partition, state, node count, CPUs, OverSubscribe, expected end and node
// list, separated by '|' (which none of them holds).
const SqueueFormat = "%i|%P|%T|%D|%C|%h|%e|%N"

// Command is the one line that writes, on a login node, the three files
// ReadDir reads into the folder $D.
const Command = `D=slurm-state; mkdir -p $D && scontrol show node -o > $D/nodes.txt && ` +
	`squeue -h -t R -o '` + SqueueFormat + `' > $D/jobs.txt && scontrol show reservation -o > $D/reservations.txt`

// Job is one line of squeue in SqueueFormat.
type Job struct {
	ID        string
	Partition string
	State     string // RUNNING, PENDING, ... (upper case)
	NodeCount int
	CPUs      int
	// Exclusive is OverSubscribe NO: the job holds its nodes whole.
	Exclusive bool
	// End is the expected end; the zero Time when squeue has none
	// (N/A, NONE, Unknown: no time limit).
	End   time.Time
	Nodes []string
	Pos   position.Position
}

// ParseJobs reads squeue's output in SqueueFormat; times are read in loc
// (the cluster's time zone; nil is UTC). A job that is not RUNNING is kept
// with its state: Apply loads only running ones.
func ParseJobs(r io.Reader, file string, loc *time.Location, lim Limits) ([]Job, error) {
	if loc == nil {
		loc = time.UTC
	}
	lim = lim.withDefaults()
	var out []Job
	err := eachLine(r, file, lim, func(line string, n int) error {
		j, err := parseJob(line, position.Position{File: file, Line: n}, loc, lim)
		if err != nil {
			return err
		}
		out = append(out, j)
		return nil
	})
	return out, err
}

func parseJob(line string, pos position.Position, loc *time.Location, lim Limits) (Job, error) {
	f := strings.Split(line, "|")
	if len(f) != 8 {
		return Job{}, position.Errorf(at(pos, 1), "%d fields, want 8 (squeue -o '%s')", len(f), SqueueFormat)
	}
	col := func(k int) position.Position { // column of field k
		c := 1
		for _, s := range f[:k] {
			c += len(s) + 1
		}
		return at(pos, c)
	}
	j := Job{ID: strings.TrimSpace(f[0]), Partition: strings.TrimSpace(f[1]), State: strings.ToUpper(strings.TrimSpace(f[2])), Pos: pos}
	if j.ID == "" {
		return j, position.Errorf(col(0), "empty job id")
	}
	var err error
	if j.NodeCount, err = cpuCount(strings.TrimSpace(f[3])); err != nil {
		return j, position.Errorf(col(3), "node count: %v", err)
	}
	if j.CPUs, err = cpuCount(strings.TrimSpace(f[4])); err != nil {
		return j, position.Errorf(col(4), "CPUs: %v", err)
	}
	j.Exclusive = strings.EqualFold(strings.TrimSpace(f[5]), "NO")
	if j.End, err = slurmTime(strings.TrimSpace(f[6]), loc); err != nil {
		return j, position.Errorf(col(6), "end time: %v", err)
	}
	if nl := strings.TrimSpace(f[7]); !noneValue(nl) {
		if j.Nodes, err = hostlist.ExpandLimit(nl, lim.MaxHosts); err != nil {
			return j, position.Wrapf(err, col(7), "node list: %v", err)
		}
	}
	if len(j.Nodes) > 0 && j.NodeCount != len(j.Nodes) {
		return j, position.Errorf(col(3), "job %s: %d nodes counted, %d listed", j.ID, j.NodeCount, len(j.Nodes))
	}
	return j, nil
}

// slurmTime reads Slurm's YYYY-MM-DDTHH:MM:SS in loc; the zero Time for
// N/A, NONE or Unknown.
func slurmTime(v string, loc *time.Location) (time.Time, error) {
	if noneValue(v) {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", v, loc)
	if err != nil {
		return time.Time{}, errorString(strconv.Quote(v) + " is not YYYY-MM-DDTHH:MM:SS")
	}
	return t, nil
}
