package queue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job submitted without a dependency keeps none (no record of an empty
// one per job), and such a job still reads as having none everywhere: it
// starts, and a later dependency on it (whose cycle check walks its
// dependencies) is accepted and holds.
func TestSubmitWithoutDependencyKeepsNone(t *testing.T) {
	s := simple(t)
	a := submit(t, s, nodes(8, time.Hour), at(0))
	blank := nodes(1, time.Hour)
	blank.Dependency = " " // blank: parsed, and empty
	b := submit(t, s, blank, at(0))
	c := submit(t, s, nodes(1, time.Hour), at(0))
	assert.Nil(t, s.jobs[a].deps, "no dependency given, none kept")
	assert.True(t, s.jobs[b].deps.empty())

	dep := "afterok:" + strconv.FormatUint(uint64(a), 10)
	err := s.Update(c, Update{Dependency: &dep}, at(1))
	require.NoError(t, err)
	again := "afterok:" + strconv.FormatUint(uint64(c), 10)
	err = s.Update(a, Update{Dependency: &again}, at(1))
	require.ErrorIs(t, err, ErrInvalidSpec, "a cycle through a job without dependencies")

	s.Schedule(at(1))
	ja, _ := s.Job(a)
	assert.Equal(t, Running, ja.State)
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(2)))
	s.Schedule(at(2))
	for _, id := range []JobID{b, c} {
		j, _ := s.Job(id)
		assert.Equal(t, Running, j.State, "job %d", id)
	}
}

// laterBySub is later as it was first written: by EndOfTime.Sub.
func laterBySub(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return t
	}
	if !t.Before(EndOfTime) || EndOfTime.Sub(t) <= d {
		return EndOfTime
	}
	return t.Add(d)
}

// later (one Add and one compare) agrees with the sum by Sub on random
// times from year 1 to past EndOfTime and durations up to the largest,
// edges included: a gap of exactly d, a nanosecond either side, and the
// largest d from before 1970, where Sub saturates.
func TestLaterIsLaterBySub(t *testing.T) {
	seed := uint64(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).Unix())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	zone := time.FixedZone("x", -7*3600)
	gapEdge := EndOfTime.Add(-(1 << 33) * time.Second) // where later's fast path stops reading the gap
	times := []time.Time{{}, EndOfTime, EndOfTime.Add(-1), EndOfTime.Add(1), time.Unix(0, 0), time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC).Add(-1), gapEdge, gapEdge.Add(-1), gapEdge.Add(1), gapEdge.Add(time.Second)}
	durs := []time.Duration{0, -1, 1, math.MaxInt64, math.MaxInt64 - 1, MaxTimeLimit, unlimited, 1 << 62, 1<<62 - 1}
	for range 3000 {
		tt := time.Unix(r.Int64N(20_000_000_000)-62_135_596_800, r.Int64N(1e9))
		if r.IntN(2) == 0 { // the accepted years, and their last 2^33 s (which later reads by the gap) more often
			tt = time.Unix(minYearUnix+r.Int64N(pastMaxYearUnix-minYearUnix), r.Int64N(1e9))
			if r.IntN(2) == 0 {
				tt = time.Unix(pastMaxYearUnix-r.Int64N(1<<34), r.Int64N(1e9))
			}
		}
		if r.IntN(2) == 0 {
			tt = tt.In(zone)
		}
		times = append(times, tt)
		durs = append(durs, time.Duration(r.Int64()>>r.IntN(64)), EndOfTime.Sub(tt), EndOfTime.Sub(tt)+time.Duration(r.IntN(3)-1))
	}
	for i, tt := range times {
		for _, d := range []time.Duration{durs[i%len(durs)], durs[r.IntN(len(durs))], durs[(i+1)%len(durs)], math.MaxInt64, EndOfTime.Sub(tt)} {
			want, got := laterBySub(tt, d), later(tt, d)
			require.True(t, want.Equal(got) && want.Location() == got.Location(), "later(%v, %d) = %v, want %v", tt, d, got, want)
		}
	}
}

// The queue orders by partition priority as the partitions stand: the
// priority remembered for the last partition read is dropped when a
// partition changes, for the jobs queued and the jobs submitted after.
func TestPartitionPriorityFollowsUpdates(t *testing.T) {
	c := cluster(t, "NodeName=n[0-1] CPUs=1\nPartitionName=a Nodes=ALL Default=YES PriorityTier=1\nPartitionName=b Nodes=ALL PriorityTier=5\n")
	s := New(c)
	spec := func(part string) Spec {
		sp := nodes(1, time.Hour)
		sp.Request.Partition = part
		return sp
	}
	order := func() []string {
		var names []string
		for _, j := range s.Pending() {
			names = append(names, j.Partition)
		}
		return names
	}
	submit(t, s, spec("a"), at(0))
	submit(t, s, spec("b"), at(0))
	submit(t, s, spec("a"), at(0))
	assert.Equal(t, []string{"b", "a", "a"}, order())

	pa, _ := c.Partition("a")
	pa.Priority = 9
	require.NoError(t, s.UpdatePartition(pa, at(1)))
	submit(t, s, spec("a"), at(1))
	submit(t, s, spec("b"), at(1))
	assert.Equal(t, []string{"a", "a", "a", "b", "b"}, order())

	pb, _ := c.Partition("b")
	pb.Priority = 20
	require.NoError(t, s.UpdatePartition(pb, at(2)))
	submit(t, s, spec("b"), at(2))
	submit(t, s, spec("a"), at(2))
	assert.Equal(t, []string{"b", "b", "b", "a", "a", "a", "a"}, order())
}

// Schedule walks the queue itself, settling the jobs behind a locked
// partition in the walk; with the walk over a copy of the queue (as it
// was) twin schedulers start the same jobs on the same nodes and leave
// every job in the same state with the same reason, over random calls on
// clusters of several partitions, with holds, begin times, dependencies
// (some never satisfied, cancelled or not) and drained nodes.
func TestScheduleWalkDecidesAsACopy(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 29))
	rounds := 30
	if testing.Short() {
		rounds = 4
	}
	if raceEnabled {
		rounds = 2
	}
	settled := 0
	for k := range rounds {
		conf := fmt.Sprintf("NodeName=n[1-%d] CPUs=%d\nPartitionName=low Nodes=n[1-%d] Default=YES PriorityTier=1\n"+
			"PartitionName=high Nodes=n[2-%d] PriorityTier=%d\nPartitionName=small Nodes=n1 MaxNodes=1 PriorityTier=%d\n",
			4+r.IntN(20), 1+r.IntN(4), 3+r.IntN(2), 4, r.IntN(3), r.IntN(3))
		var opts []Option
		if r.IntN(2) == 0 {
			opts = append(opts, WithCancelNeverSatisfied())
		}
		if r.IntN(3) == 0 {
			opts = append(opts, WithPolicy(SJF{}))
		}
		tw := newEASYTwins(t, conf, opts...)
		tw.whole.copyWalk = true
		where := fmt.Sprintf("seed %d round %d (%q)", seed, k, conf)
		settled += scheduleTwinsRun(t, r, tw, where)
	}
	t.Logf("%d jobs settled behind a lock in the walk", settled)
	require.Positive(t, settled)
}

// scheduleTwinsRun drives tw through random calls and Schedule passes,
// comparing after each pass; it returns the jobs seen pending behind a
// lock with ReasonPriority.
func scheduleTwinsRun(t *testing.T, r *rand.Rand, tw *easyTwins, where string) int {
	c := tw.whole.Cluster()
	n, cpn := c.NodeCount(), c.MostNodeCPUs()
	now, settled := t0, 0
	var ids []JobID
	for step := 0; step < 150; step++ {
		now = now.Add(time.Duration(r.IntN(3)) * time.Minute)
		switch r.IntN(4) {
		case 0, 1:
			spec := randomSpec(r, n, cpn, now)
			spec.Request.Partition = []string{"", "low", "high", "small"}[r.IntN(4)]
			if spec.Request.Partition == "small" {
				spec.Request = selectnodes.Request{Partition: "small", CPUs: 1}
			}
			switch r.IntN(6) {
			case 0:
				spec.Hold = true
			case 1:
				if len(ids) > 0 {
					spec.Dependency = []string{"afterok:", "afternotok:", "afterany:"}[r.IntN(3)] + strconv.FormatUint(uint64(ids[r.IntN(len(ids))]), 10)
				}
			case 2:
				spec.Dependency = "singleton"
			}
			var id JobID
			tw.both("submit", func(s *Scheduler) (err error) { id, err = s.Submit(spec, now); return err })
			if id != 0 {
				ids = append(ids, id)
			}
		default:
			tw.randomCall(r, n, cpn, now)
		}
		want, got := tw.whole.Schedule(now), tw.incr.Schedule(now)
		require.Equal(t, want, got, "%s step %d: started", where, step)
		jw, ji := tw.whole.Jobs(), tw.incr.Jobs()
		require.Equal(t, len(jw), len(ji), "%s step %d", where, step)
		for i := range jw {
			require.Equal(t, jw[i].State, ji[i].State, "%s step %d: job %d", where, step, jw[i].ID)
			require.Equal(t, jw[i].Reason, ji[i].Reason, "%s step %d: job %d", where, step, jw[i].ID)
			if jw[i].State == Pending && jw[i].Reason == ReasonPriority {
				settled++
			}
		}
	}
	require.NoError(t, tw.incr.Cluster().CheckInvariants())
	return settled
}

// The UTC fast path of CheckTime has the years' bounds right, and agrees
// with Year on random times in and around the years, in UTC and in other
// zones.
func TestYearBoundsInUnixSeconds(t *testing.T) {
	require.Equal(t, time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), int64(minYearUnix))
	require.Equal(t, time.Date(MaxYear+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), int64(pastMaxYearUnix))
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 31))
	zones := []*time.Location{time.UTC, time.FixedZone("e", 14*3600), time.FixedZone("w", -12*3600), time.FixedZone("far", 400*86400)}
	edges := []int64{minYearUnix, pastMaxYearUnix}
	for range 20000 {
		u := r.Int64N(2*pastMaxYearUnix) - pastMaxYearUnix - 86400*400
		if r.IntN(4) == 0 {
			u = edges[r.IntN(2)] + r.Int64N(5) - 2
		}
		tt := time.Unix(u, r.Int64N(1e9)).In(zones[r.IntN(len(zones))])
		y := tt.Year()
		require.Equal(t, y >= MinYear && y <= MaxYear, CheckTime(tt) == nil, "%v", tt)
	}
}

// eligible's in-line answer for the usual job is pendingReason's: random
// jobs held or not (in external mode or not), with no Begin, a zero Begin
// in a zone, a Begin past or to come, and no dependency, an empty one or
// one on a job pending or ended (seed logged).
func TestEligibleInLineAsPendingReason(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 13))
	for _, external := range []bool{false, true} {
		var opts []Option
		if external {
			opts = append(opts, WithExternalScheduler())
		}
		s := simple(t, opts...)
		first := submit(t, s, nodes(1, time.Hour), at(0))
		zone := time.FixedZone("z", 3600)
		begins := []time.Time{{}, time.Time{}.In(zone), at(-5), at(5)}
		for range 400 {
			j := &job{Job: Job{ID: 99, Held: r.IntN(3) == 0, Begin: begins[r.IntN(len(begins))], State: Pending}}
			switch r.IntN(3) {
			case 1:
				j.deps = &Dependency{}
			case 2:
				d, err := ParseDependency(fmt.Sprintf("afterok:%d", first))
				require.NoError(t, err)
				j.deps = d
			}
			want := s.pendingReason(j, at(1)) == ReasonPriority
			require.Equal(t, want, s.eligible(j, at(1)), "held %v, begin %v, deps %v", j.Held, j.Begin, j.deps)
		}
	}
}
