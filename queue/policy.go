package queue

import (
	"math"
	"time"
)

// Policy is the schedule plugin's say (the Novotný thesis §4.2): a job's priority,
// which with its partition's priority orders the queue.
type Policy interface {
	// Priority returns a job's priority (higher runs first), at least 1.
	// j is the scheduler's own record, lent for the call: read it, but
	// do not change it or keep the pointer (see Ownership in the package
	// documentation).
	Priority(j *Job, ctx PolicyContext) int64
	// Dynamic reports whether priorities change with time alone (then the
	// scheduler recomputes them every RecalcInterval).
	Dynamic() bool
}

// PolicyContext is what a Policy may look at besides the job.
type PolicyContext struct {
	Now                  time.Time
	ClusterNodes         int
	PartitionPriority    int
	MaxPartitionPriority int
}

// FCFS: first come, first served — every job the same priority, so the
// submit order decides.
type FCFS struct{}

func (FCFS) Priority(*Job, PolicyContext) int64 { return 1 }
func (FCFS) Dynamic() bool                      { return false }

// SJF: shortest (time limit) job first; jobs without a limit last.
type SJF struct{}

func (SJF) Priority(j *Job, _ PolicyContext) int64 {
	if j.TimeLimit <= 0 {
		return 1
	}
	return max(1, math.MaxInt32-int64(j.TimeLimit/time.Second))
}
func (SJF) Dynamic() bool { return false }

// LJF: longest (time limit) job first; jobs without a limit first of all.
type LJF struct{}

func (LJF) Priority(j *Job, _ PolicyContext) int64 {
	if j.TimeLimit <= 0 {
		return math.MaxInt32
	}
	return max(1, int64(j.TimeLimit/time.Second))
}
func (LJF) Dynamic() bool { return false }

// Multifactor is Slurm's priority/multifactor reduced to its pluggable
// core: a weighted sum of factors, each in [0, 1].
type Multifactor struct {
	// Weights of the factors. Each saturates at ±MaxPriorityWeight
	// (Slurm's weights are 32-bit), +Inf included; a NaN weight counts as
	// 0. So no weight can overflow the sum or collapse every priority to 1.
	Age, JobSize, Partition, Site float64
	// MaxAge is the wait at which the age factor reaches 1 (7 days if 0).
	MaxAge time.Duration
	// FavorSmall makes small jobs score high on job size.
	FavorSmall bool
	// SiteFactor, when set, supplies the site factor (e.g. allocation
	// balance and time left, the HADM paper's f_credit and f_temporal), clamped
	// to [0, 1]. It is called when a priority is computed: at submit, at
	// updates, and for every pending job once per pass (or once per
	// WithRecalcInterval when one is set) — never while the queue is
	// compared. It runs under the scheduler's lock and
	// must not call the Scheduler. j is the job's own record, lent as to
	// Policy.Priority: read it, do not change it or keep the pointer.
	SiteFactor func(j *Job, now time.Time) float64
}

func (m Multifactor) Priority(j *Job, ctx PolicyContext) int64 {
	maxAge := m.MaxAge
	if maxAge <= 0 {
		maxAge = 7 * 24 * time.Hour
	}
	age := clamp01(float64(ctx.Now.Sub(j.Submit)) / float64(maxAge))
	size := 0.0
	if ctx.ClusterNodes > 0 {
		size = clamp01(float64(max(j.Request.MinNodes, 1)) / float64(ctx.ClusterNodes))
	}
	if m.FavorSmall {
		size = 1 - size
	}
	part := 0.0
	if ctx.MaxPartitionPriority > 0 {
		part = clamp01(float64(ctx.PartitionPriority) / float64(ctx.MaxPartitionPriority))
	}
	site := 0.0
	if m.SiteFactor != nil {
		site = clamp01(m.SiteFactor(j, ctx.Now))
	}
	sum := weight(m.Age)*age + weight(m.JobSize)*size + weight(m.Partition)*part + weight(m.Site)*site
	return max(1, int64(sum)) // |sum| <= 4 * MaxPriorityWeight: exact in an int64
}

// MaxPriorityWeight is the largest Multifactor weight; larger ones (and
// +Inf) count as it.
const MaxPriorityWeight = math.MaxUint32

// weight is w saturated to ±MaxPriorityWeight, NaN as 0.
func weight(w float64) float64 {
	switch {
	case math.IsNaN(w):
		return 0
	case w > MaxPriorityWeight:
		return MaxPriorityWeight
	case w < -MaxPriorityWeight:
		return -MaxPriorityWeight
	}
	return w
}

func (m Multifactor) Dynamic() bool { return m.Age != 0 || m.SiteFactor != nil }

func clamp01(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > 1:
		return 1
	}
	return x
}

var (
	_ Policy = FCFS{}
	_ Policy = SJF{}
	_ Policy = LJF{}
	_ Policy = Multifactor{}
)
