package federation

import (
	"fmt"
	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
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

// shape identifies what a forecast depends on: every field of the spec
// but its ID, name and dependency (the grid resolves dependencies
// itself). It is a comparable struct, so a map keyed by it hashes without
// building a string (it is computed once per job per pass). Pointers in
// the request (features, a node bitmap) count by identity: two equal
// requests behind different pointers miss the cache, a cost, never a
// wrong answer.
type shape struct {
	user, account, partition         string
	minNodes, maxNodes, desired      int
	cpus, cpusPerNode                int
	cpusPerSocket, maxSwitches       int
	mem, tmp, memPerCPU              int64
	share                            selectnodes.ShareRequest
	reqLimit, limit, timeMin         time.Duration
	begin, priority, nice            int64
	contiguous, root, held, hold, rq bool
	wholeMem, coreTasks              bool
	reqUser, reqAccount, qos         string
	features                         *features.Expr
	exclude                          *bitset.BitSet
	lists                            string // Required, Excluded, GRES and Groups written out (usually none)
}

func shapeKey(s queue.Spec) shape {
	r := &s.Request
	k := shape{user: s.User, account: s.Account, partition: r.Partition, minNodes: r.MinNodes, maxNodes: r.MaxNodes,
		desired: r.DesiredNodes, cpus: r.CPUs, cpusPerNode: r.MinCPUsPerNode, cpusPerSocket: r.MaxCPUsPerSocket,
		maxSwitches: r.MaxSwitches, mem: r.MinMemoryPerNode, tmp: r.MinTmpDiskPerNode, memPerCPU: r.MemPerCPU,
		share: r.Share, reqLimit: r.TimeLimit, limit: s.TimeLimit, timeMin: s.TimeMin, priority: s.Priority,
		nice: s.Nice, contiguous: r.Contiguous, root: r.Root, held: r.Held, hold: s.Hold, rq: s.Requeue,
		wholeMem: r.WholeMemory, coreTasks: r.CoreTasks, reqUser: r.User, reqAccount: r.Account, qos: r.QOS,
		features: r.Features, exclude: r.ExcludeNodes}
	if !s.Begin.IsZero() {
		k.begin = s.Begin.UnixNano()
	}
	if len(r.Required)+len(r.Excluded)+len(r.GRES)+len(r.Groups) > 0 {
		k.lists = writeLists(r)
	}
	return k
}

// writeLists writes a request's lists so that different lists never
// write alike: every name quoted, each list introduced by its own mark.
func writeLists(r *selectnodes.Request) string {
	var b strings.Builder
	for _, x := range r.Required {
		b.WriteString(strconv.Quote(x))
	}
	b.WriteByte('|')
	for _, x := range r.Excluded {
		b.WriteString(strconv.Quote(x))
	}
	for _, g := range r.GRES {
		fmt.Fprintf(&b, "|%q %q %d %d", g.Name, g.Type, g.Min, g.Max)
	}
	b.WriteByte('#')
	for _, x := range r.Groups {
		b.WriteString(strconv.Quote(x))
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
