package federation

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
// Pointers inside the request (features, a node bitmap) count by
// identity, so two equal requests behind different pointers miss the
// cache: a cost, never a wrong answer. It is written by hand because it
// runs once per job per pass.
func shapeKey(s queue.Spec) string {
	var b strings.Builder
	str := func(x string) { b.WriteString(strconv.Quote(x)) }
	num := func(x int64) { b.WriteString(strconv.FormatInt(x, 10)); b.WriteByte(' ') }
	flag := func(x bool) { b.WriteString(strconv.FormatBool(x)); b.WriteByte(' ') }
	r := &s.Request
	str(s.User)
	str(s.Account)
	str(r.Partition)
	for _, x := range []int64{int64(r.MinNodes), int64(r.MaxNodes), int64(r.DesiredNodes), int64(r.CPUs),
		int64(r.MinCPUsPerNode), r.MinMemoryPerNode, r.MinTmpDiskPerNode, int64(r.Share), int64(r.TimeLimit),
		int64(s.TimeLimit), s.Begin.UnixNano(), s.Priority, s.Nice} {
		num(x)
	}
	for _, x := range []bool{r.Contiguous, r.Root, r.Held, s.Hold, s.Requeue} {
		flag(x)
	}
	fmt.Fprintf(&b, "%p %p ", r.Features, r.ExcludeNodes)
	for _, x := range r.Required {
		str(x)
	}
	b.WriteByte('|')
	for _, x := range r.Excluded {
		str(x)
	}
	b.WriteByte('|')
	for _, g := range r.GRES {
		str(g.Name)
		str(g.Type)
		num(g.Min)
		num(g.Max)
	}
	return b.String()
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
