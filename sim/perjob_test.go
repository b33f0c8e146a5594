package sim

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An ended job's run record is reused for a later submission: a replay
// whose jobs run one at a time keeps one spare record, not one per job,
// and the records it hands out (OnRecord's and the result's) are whole
// and unshared all the same.
func TestEndedRecordsAreReused(t *testing.T) {
	data := syntheticTraceEvery(40, 5000) // each job ends before the next
	sr, err := NewSWFReader(bytes.NewReader(data), SWFOptions{})
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	var given []Record
	o := Options{Backfill: EASY, Record: true, OnRecord: func(r Record) { given = append(given, r) }}
	r := newRunner(c, "serial", NewTraceSource(sr, c, Conventions{}, 0), 0, o)
	require.NoError(t, r.peek())
	require.NoError(t, r.loop())
	r.finish()
	assert.Len(t, r.spare, 1, "one record serves every job")

	want, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: EASY, Record: true}, 0)
	require.Len(t, want.Records, 40)
	assert.Equal(t, want.Records, r.res.Records)
	assert.Equal(t, want.Records, given)
	for i, rec := range r.res.Records {
		assert.Equal(t, i, rec.Seq)
		require.NotEmpty(t, rec.Nodes)
		rec.Nodes[0] = -1 // the result's own: OnRecord's copy is untouched
		assert.GreaterOrEqual(t, given[i].Nodes[0], 0)
	}
}

// Job names are cut from shared blocks: each is "swf<ID>", stays so when
// later names fill the block and start new ones, and a block serves
// hundreds of names (far fewer allocations than names).
func TestJobNamesFromBlocks(t *testing.T) {
	var u userNames
	ids := []int64{1, 0, -7, 9223372036854775807, -9223372036854775808}
	for i := int64(0); i < 5000; i++ {
		ids = append(ids, i*7919)
	}
	names := make([]string, len(ids))
	for k, id := range ids {
		names[k] = u.job(id)
	}
	for k, id := range ids {
		require.Equal(t, "swf"+strconv.FormatInt(id, 10), names[k])
	}
	allocs := testing.AllocsPerRun(1000, func() { _ = u.job(123456) })
	assert.Less(t, allocs, 0.05, "allocations per name")
}

// The live jobs' window and map answer as one map would, on random runs
// of IDs mostly in order (as the scheduler's counter gives them), some
// out of it (a Spec's own, below and above the window, 0 and the
// largest), ended in random order.
func TestLiveJobsAsAMap(t *testing.T) {
	first := uint64(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).Unix())
	t.Logf("seeds %d to %d", first, first+19)
	for seed := first; seed < first+20; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		var l liveJobs
		want := map[queue.JobID]*liveJob{}
		var live []queue.JobID // the IDs put, some maybe dropped since
		next := queue.JobID(1 + r.IntN(5))
		for step := 0; step < 3000; step++ {
			switch k := r.IntN(10); {
			case k < 5: // submit
				id := next
				switch r.IntN(12) {
				case 0:
					id = queue.JobID(r.Uint64())
				case 1:
					id = queue.JobID(r.IntN(20))
				case 2:
					id = math.MaxUint64 - queue.JobID(r.IntN(3))
				default:
					next++
				}
				if _, used := want[id]; used {
					continue
				}
				lj := &liveJob{run: time.Duration(step)}
				l.put(id, lj)
				want[id] = lj
				live = append(live, id)
			default: // end one, or look up one that is not there
				id := next - queue.JobID(1+r.IntN(40))
				if r.IntN(4) == 0 && len(live) > 0 {
					// one held, drawn from the seed (a map's order is not)
					k := r.IntN(len(live))
					id, live[k] = live[k], live[len(live)-1]
					live = live[:len(live)-1]
				}
				if got := l.get(id); got != want[id] {
					t.Fatalf("seed %d step %d: get(%d) = %p, want %p", seed, step, id, got, want[id])
				}
				l.drop(id)
				delete(want, id)
			}
			if l.n != len(want) {
				t.Fatalf("seed %d step %d: %d jobs held, want %d", seed, step, l.n, len(want))
			}
		}
		all := map[*liveJob]bool{}
		for _, lj := range l.all() {
			all[lj] = true
		}
		require.Len(t, all, len(want), "seed %d", seed)
		for id, lj := range want {
			require.Same(t, lj, l.get(id), "seed %d: get(%d)", seed, id)
			require.True(t, all[lj], "seed %d: job %d listed", seed, id)
		}
	}
}

// onlyNext hides a Source's other methods: the replay reads it by Next.
type onlyNext struct{ Source }

// A trace's jobs read in place (the runner's own path for a TraceSource)
// replay exactly as the same jobs read through Next, on traces with jobs
// out of order within the window, skipped jobs and a limit.
func TestTraceReadInPlaceAsByNext(t *testing.T) {
	n := 300
	if testing.Short() || raceEnabled {
		n = 80
	}
	var b bytes.Buffer
	b.Write(syntheticTraceEvery(n, 40))
	fmt.Fprintf(&b, "%d %d -1 -1 4 -1 -1 4 600 -1 1 1 1 -1 -1 1 -1 -1\n", n+1, 40*n-10)  // unknown run time: skipped
	fmt.Fprintf(&b, "%d %d -1 50 4 -1 -1 4 600 -1 1 1 1 -1 -1 1 -1 -1\n", n+2, 40*n-100) // before the job above it
	data := b.Bytes()
	for _, limit := range []int{0, n / 2} {
		for _, bf := range []BackfillMode{NoBackfill, EASY, Conservative} {
			read := func(wrap bool) *Result {
				sr, err := NewSWFReader(bytes.NewReader(data), SWFOptions{})
				require.NoError(t, err)
				c, err := sr.Header().ClusterFor(nil, nil)
				require.NoError(t, err)
				var src Source = NewTraceSource(sr, c, Conventions{}, limit)
				if wrap {
					src = onlyNext{src}
				}
				res, err := RunSource(c, "x", src, Options{Backfill: bf, Record: true})
				require.NoError(t, err)
				return res
			}
			inPlace, byNext := read(false), read(true)
			require.NotEmpty(t, inPlace.Records)
			assert.Equal(t, byNext, inPlace, "limit %d, %v", limit, bf)
		}
	}
}

// The window never wraps from the largest ID to the smallest: IDs put
// after the largest ones are found, and dropped, wherever they are kept.
func TestLiveJobsDoNotWrap(t *testing.T) {
	var l liveJobs
	ids := []queue.JobID{math.MaxUint64 - 1, math.MaxUint64, 0, 1, 2}
	held := map[queue.JobID]*liveJob{}
	for _, id := range ids {
		held[id] = &liveJob{}
		l.put(id, held[id])
	}
	for _, id := range ids {
		require.Same(t, held[id], l.get(id), "get(%d)", id)
	}
	for _, id := range ids {
		l.drop(id)
		require.Nil(t, l.get(id), "get(%d) after drop", id)
	}
	require.Zero(t, l.n)
}
