package federation

import (
	"fmt"
	"math"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// unlimitedWork is the time a job without a time limit is assumed to
// take when its work is counted.
const unlimitedWork = 24 * time.Hour

// maxDrain caps a drain time, so arithmetic on huge backlogs stays finite.
const maxDrain = 100 * 365 * 24 * time.Hour

// shapeKey identifies what a forecast depends on: every field of the spec
// but its ID, name and dependency (the grid resolves dependencies itself).
// Pointers inside the request print as addresses, so two equal requests
// behind different pointers miss the cache: a cost, never a wrong answer.
func shapeKey(s queue.Spec) string {
	return fmt.Sprintf("%s\x00%s\x00%v\x00%d\x00%d\x00%d\x00%d\x00%t\x00%t",
		s.User, s.Account, s.Request, s.TimeLimit, s.Begin.UnixNano(), s.Priority, s.Nice, s.Hold, s.Requeue)
}

// cpuSeconds is a request's work: the CPUs it asks for (at least one per
// node) times its time limit.
func cpuSeconds(r selectnodes.Request, limit time.Duration) float64 {
	nodes := max(r.MinNodes, 1)
	cpus := max(r.CPUs, nodes*max(r.MinCPUsPerNode, 1), 1)
	if limit <= 0 {
		limit = unlimitedWork
	}
	return float64(cpus) * limit.Seconds()
}

// drainTime is how long work CPU-seconds take on capacity CPUs.
func drainTime(work float64, capacity int) time.Duration {
	if work <= 0 || capacity <= 0 {
		return 0
	}
	secs := work / float64(capacity)
	if math.IsNaN(secs) || secs >= maxDrain.Seconds() {
		return maxDrain
	}
	return time.Duration(secs * float64(time.Second))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sooner reports whether estimate a starts before b (unavailable ones
// start after every forecast).
func sooner(a, b Estimate) bool {
	switch {
	case a.Unavailable:
		return false
	case b.Unavailable:
		return true
	}
	return a.Start.Before(b.Start)
}
