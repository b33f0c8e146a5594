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
// A run reads its source to the end: a second run needs a new Source.
type Source interface {
	// Next returns the next job, or io.EOF after the last.
	Next() (Job, error)
}

// ErrOrder is matched (errors.Is) by the error of a Source whose job is
// submitted before the one it follows.
var ErrOrder = errors.New("jobs out of submit order")

// Source gives the workload's jobs in order, for RunSource (a nil
// workload has none). It reads w.Jobs as it goes, without a copy: they
// must not change while a run reads them.
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

// spent reports whether a run read the source to its end (an empty
// workload's is not spent: it had nothing to give).
func (s *sliceSource) spent() bool { return s.i > 0 && s.i >= len(s.jobs) }

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
	sj      SWFJob // the line being read
	users   userNames
	err     error // the first error, given again by every later Next
}

type heldJob struct {
	j    Job
	line int
	seq  int
}

// NewTraceSource reads jobs from r for cluster c under conv (its zero
// value has neither, and Next says so). For an extended trace
// (r.Extended) build c from the whole trace (OpenSWF, then
// Trace.ClusterFor): its nodes need the SiteProperties its jobs ask for,
// which r.Header, having no jobs, cannot give, and the jobs asking for
// them would all be rejected. limit > 0 takes the first limit jobs kept
// (a job left out, counted in Skipped, does not count), in the order of
// the trace's lines, and reads no further line; Trace.WorkloadFirst takes
// the same jobs. On a trace out of order they may differ from the first
// limit jobs by submit time.
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
// after limit jobs), or the first error (the reader's, or ErrOrder), then
// that error again.
func (s *TraceSource) Next() (Job, error) {
	var j Job
	if err := s.nextInto(&j); err != nil {
		return Job{}, err
	}
	return j, nil
}

// nextInto is Next written to *out (left alone on an error): a replay
// reads each job into its own place, not through a returned copy.
func (s *TraceSource) nextInto(out *Job) error {
	if s.r == nil || s.c == nil {
		return errors.New("sim: a TraceSource needs a reader and a cluster (NewTraceSource)")
	}
	if s.err != nil {
		return s.err
	}
	if s.limit > 0 && s.emitted >= s.limit {
		return io.EOF
	}
	for !s.eof && len(s.buf) < ReorderWindow && (s.limit == 0 || s.read < s.limit) {
		err := s.r.take(&s.sj)
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			s.err = err
			return err
		}
		// the job is made in its slot of the window: no copy of it moves
		p := s.slot()
		if skip := s.r.t.job(&s.sj, s.c, s.conv, &s.users, &p.j); skip != "" {
			*p = heldJob{}
			s.free = append(s.free, p)
			s.skipped[skip]++
			continue
		}
		p.line, p.seq = s.sj.Line, s.read
		s.push(p)
		s.read++
	}
	if len(s.buf) == 0 {
		return io.EOF
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
		s.recycle(h)
		// sticky, as the reader's errors are: going on would drop the job
		s.err = fmt.Errorf("sim: line %d: submitted %v before a job %d or more lines earlier; sort the trace by submit time: %w",
			h.line, s.last-h.j.Submit, ReorderWindow, ErrOrder)
		return s.err
	}
	s.last = h.j.Submit
	s.emitted++
	*out = h.j
	s.recycle(h)
	return nil
}

// spent reports whether the source gave jobs and has no more.
func (s *TraceSource) spent() bool {
	return s.emitted > 0 && ((s.limit > 0 && s.emitted >= s.limit) || (s.eof && len(s.buf) == 0))
}

func lessHeld(a, b *heldJob) bool {
	if c := cmp.Compare(a.j.Submit, b.j.Submit); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// slot is an unused heldJob, one popped before when there is one.
func (s *TraceSource) slot() *heldJob {
	if k := len(s.free); k > 0 {
		p := s.free[k-1]
		s.free = s.free[:k-1]
		return p
	}
	return new(heldJob)
}

// recycle keeps a popped slot for a later job. It is not cleared: the
// next job is written over the whole of it (Trace.job), and what it holds
// meanwhile (a job's name and user, strings shared with other jobs) is
// little and soon dropped.
func (s *TraceSource) recycle(h *heldJob) {
	s.free = append(s.free, h)
}

// push files p in submit order. A trace in order appends (no Job is
// moved: the window holds pointers); an earlier job is inserted where it
// belongs.
func (s *TraceSource) push(p *heldJob) {
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

// pop takes the earliest job's slot (recycle gives it back).
func (s *TraceSource) pop() *heldJob {
	top := s.buf[0]
	s.buf[0] = nil
	s.buf = s.buf[1:] // append reallocates once the front is used up
	return top
}
