package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Source gives a workload's jobs one at a time, in submit order: Run
// submits each when its time comes and holds no job it has not read yet.
type Source interface {
	// Next returns the next job, or io.EOF after the last.
	Next() (Job, error)
}

// ErrOrder is matched (errors.Is) by the error of a Source whose job is
// submitted before the one it follows.
var ErrOrder = errors.New("jobs out of submit order")

// Source gives the workload's jobs in order, for RunSource (a nil
// workload has none).
func (w *Workload) Source() Source {
	if w == nil {
		return &sliceSource{}
	}
	return &sliceSource{jobs: w.Jobs}
}

type sliceSource struct {
	jobs []Job
	i    int
}

func (s *sliceSource) Next() (Job, error) {
	if s.i >= len(s.jobs) {
		return Job{}, io.EOF
	}
	s.i++
	return s.jobs[s.i-1], nil
}

// ReorderWindow is how many jobs a TraceSource holds to put a trace's jobs
// in submit order: a job submitted before one that many jobs earlier is
// an ErrOrder error (the shipped traces are in order).
const ReorderWindow = 1024

// TraceSource reads a trace's jobs as a replay needs them: each SWF line
// becomes a Job for the cluster (as Trace.WorkloadWith does) only when the
// jobs before it have been taken, so memory does not grow with the trace.
type TraceSource struct {
	r       *SWFReader
	c       *selectnodes.Cluster
	conv    Conventions
	limit   int // 0: all
	emitted int
	read    int        // jobs read, for the order of equal submit times
	buf     []*heldJob // in submit order
	free    []*heldJob // popped ones, for the next pushes
	eof     bool
	origin  time.Duration // subtracted from submit times (absolute traces)
	started bool
	last    time.Duration
	skipped map[string]int
}

type heldJob struct {
	j    Job
	line int
	seq  int
}

// NewTraceSource reads jobs from r for cluster c under conv (its zero
// value has neither, and Next says so); limit > 0
// takes the first limit jobs of the trace (in submit order) and reads no
// further line.
func NewTraceSource(r *SWFReader, c *selectnodes.Cluster, conv Conventions, limit int) *TraceSource {
	return &TraceSource{r: r, c: c, conv: conv, limit: max(limit, 0), skipped: map[string]int{}}
}

// Skipped counts the trace jobs left out so far, by reason (as
// Workload.Skipped). The caller owns the map.
func (s *TraceSource) Skipped() map[string]int {
	out := make(map[string]int, len(s.skipped))
	for k, v := range s.skipped {
		out[k] = v
	}
	return out
}

// Next returns the next job in submit order, io.EOF after the last (or
// after limit jobs), or the reader's error.
func (s *TraceSource) Next() (Job, error) {
	if s.r == nil || s.c == nil {
		return Job{}, errors.New("sim: a TraceSource needs a reader and a cluster (NewTraceSource)")
	}
	if s.limit > 0 && s.emitted >= s.limit {
		return Job{}, io.EOF
	}
	for !s.eof && len(s.buf) < ReorderWindow && (s.limit == 0 || s.read < s.limit) {
		sj, err := s.r.Next()
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			return Job{}, err
		}
		j, skip := s.r.t.job(sj, s.c, s.conv)
		if skip != "" {
			s.skipped[skip]++
			continue
		}
		s.push(heldJob{j, sj.Line, s.read})
		s.read++
	}
	if len(s.buf) == 0 {
		return Job{}, io.EOF
	}
	if !s.started {
		s.started = true
		if first := s.buf[0].j.Submit; first > absoluteSubmit {
			s.origin = first // absolute (Unix) submit times
		}
	}
	h := s.pop()
	h.j.Submit -= s.origin
	if h.j.Submit < s.last {
		return Job{}, fmt.Errorf("sim: line %d: submitted %v before a job %d or more lines earlier; sort the trace by submit time: %w",
			h.line, s.last-h.j.Submit, ReorderWindow, ErrOrder)
	}
	s.last = h.j.Submit
	s.emitted++
	return h.j, nil
}

func lessHeld(a, b *heldJob) bool {
	if c := cmp.Compare(a.j.Submit, b.j.Submit); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// push files h in submit order. A trace in order appends (no Job is
// moved: the window holds pointers); an earlier job is inserted where it
// belongs.
func (s *TraceSource) push(h heldJob) {
	var p *heldJob
	if k := len(s.free); k > 0 {
		p, s.free = s.free[k-1], s.free[:k-1]
	} else {
		p = new(heldJob) // (&h would move every h to the heap)
	}
	*p = h
	n := len(s.buf)
	if n == 0 || !lessHeld(p, s.buf[n-1]) {
		s.buf = append(s.buf, p)
		return
	}
	i, _ := slices.BinarySearchFunc(s.buf, p, func(a, b *heldJob) int {
		if lessHeld(a, b) {
			return -1
		}
		return 1
	})
	s.buf = slices.Insert(s.buf, i, p)
}

// pop takes the earliest job.
func (s *TraceSource) pop() heldJob {
	top := s.buf[0]
	s.buf[0] = nil
	s.buf = s.buf[1:] // append reallocates once the front is used up
	h := *top
	*top = heldJob{} // holds nothing until pushed again
	s.free = append(s.free, top)
	return h
}
