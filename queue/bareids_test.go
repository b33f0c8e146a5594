package queue

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runs hold exactly the IDs added, in any order, as disjoint,
// ascending, non-adjacent runs.
func TestBareIDsHoldExactlyTheAddedIDs(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 7))
	for round := range 50 {
		var b bareIDs
		want := map[JobID]bool{}
		span := 1 + r.IntN(300)
		base := JobID(1)
		if round%5 == 0 {
			base = lastJobID - JobID(span) // the top of the ID space
		}
		if round%3 == 1 { // some runs restored first, as Restore puts them (each within the ID space)
			for lo := base + JobID(r.IntN(span/2+1)); lo < base+JobID(span) && lo >= base; lo += JobID(3 + r.IntN(20)) {
				b.insertRun(idRange{lo, lo + 1})
				want[lo], want[lo+1] = true, true
			}
		}
		next := base // a replay's order: mostly rising, with gaps filled later
		for range r.IntN(2 * span) {
			id := base + JobID(r.IntN(span+1))
			if round%2 == 0 && next <= base+JobID(span) && next >= base {
				id, next = next, next+JobID(1+r.IntN(3))
			}
			b.add(id)
			want[id] = true
		}
		for id := base; id <= base+JobID(span) && id >= base; id++ {
			require.Equal(t, want[id], b.has(id), "round %d id %d", round, id)
		}
		runs := b.runs()
		n := 0
		for i, run := range runs {
			require.LessOrEqual(t, run.lo, run.hi)
			if i > 0 {
				require.Greater(t, run.lo, runs[i-1].hi+1, "runs %v and %v overlap or touch", runs[i-1], run)
			}
			n += int(run.hi-run.lo) + 1
		}
		require.Equal(t, len(want), n, "round %d", round)
	}
	var zero bareIDs
	assert.False(t, zero.has(1))
	assert.Empty(t, zero.runs())
}

// Under WithoutTombstones a forgotten job's ID stays in use, a later
// dependency naming it is refused, and a replay's forgotten jobs collapse
// into one run.
func TestWithoutTombstones(t *testing.T) {
	s := simple(t, WithForgetFinished(), WithoutTombstones())
	heapAfterFinishing(t, s, 50)
	assert.Empty(t, s.gone, "no tombstone")
	assert.Equal(t, []idRange{{1, 50}}, s.bare.runs())
	_, err := s.Submit(Spec{ID: 7, Request: selectnodes.Request{CPUs: 1}}, t0.Add(time.Hour))
	assert.ErrorIs(t, err, ErrDuplicateID)
	_, err = s.Submit(Spec{Dependency: "afterok:7", Request: selectnodes.Request{CPUs: 1}}, t0.Add(time.Hour))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "forgotten without its end state")
	held, err := s.Submit(Spec{Hold: true, Request: selectnodes.Request{CPUs: 1}}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, JobID(51), held, "the counter goes on past the forgotten IDs")
	dep := "afterany:7"
	err = s.Update(held, Update{Dependency: &dep}, t0.Add(time.Hour))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorIs(t, s.Forget(7), ErrUnknownJob)
}

// Once a job names another in a dependency, Forget keeps tombstones
// again, so that dependency resolves as it would have without the option.
func TestWithoutTombstonesKeepsThemForDependencies(t *testing.T) {
	run := func(opts ...Option) []Event {
		s := simple(t, append(opts, WithForgetFinished())...)
		var evs []Event
		s.Subscribe(func(e Event) { evs = append(evs, e) })
		first, err := s.Submit(Spec{Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour}, t0)
		require.NoError(t, err)
		_, err = s.Submit(Spec{Dependency: fmt.Sprintf("afterok:%d", first), Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour}, t0)
		require.NoError(t, err)
		s.Schedule(t0)
		require.NoError(t, s.Finish(first, Outcome{}, t0.Add(time.Minute)))
		s.Schedule(t0.Add(2 * time.Minute))
		return evs
	}
	with := run(WithoutTombstones())
	assert.Equal(t, run(), with)
	assert.Equal(t, EventStart, with[len(with)-1].Kind, "the dependent job started after its target was forgotten")
}

// A snapshot keeps the runs of forgotten IDs, and a restored scheduler
// keeps them in use; Restore refuses malformed runs with their path.
func TestWithoutTombstonesSnapshot(t *testing.T) {
	s := simple(t, WithForgetFinished(), WithoutTombstones())
	heapAfterFinishing(t, s, 20)
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	assert.Contains(t, buf.String(), `"forgotten_ids":[{"first":1,"last":20}]`)
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	_, err = r.Submit(Spec{ID: 20, Request: selectnodes.Request{CPUs: 1}}, t0.Add(time.Hour))
	assert.ErrorIs(t, err, ErrDuplicateID)
	id, err := r.Submit(Spec{Request: selectnodes.Request{CPUs: 1}}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, JobID(21), id)

	good := buf.String()
	for _, c := range []struct{ runs, path string }{
		{`[{"first":0,"last":3}]`, "forgotten_ids[0].first"},
		{`[{"first":5,"last":3}]`, "forgotten_ids[0].last"},
		{`[{"first":1,"last":9},{"first":9,"last":12}]`, "forgotten_ids[1].first"},
	} {
		bad := bytes.Replace([]byte(good), []byte(`[{"first":1,"last":20}]`), []byte(c.runs), 1)
		_, err := Restore(bytes.NewReader(bad), cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
		var re *RestoreError
		require.ErrorAs(t, err, &re, c.runs)
		assert.Equal(t, c.path, re.Path, c.runs)
	}
}

// With WithoutTombstones the live heap of a queue that forgets its jobs
// does not grow with their number: ten times the jobs, the same heap
// within a bound far below a tombstone per job. Not timed: it compares
// heap sizes.
func TestWithoutTombstonesMemoryIsFlat(t *testing.T) {
	n := 3000
	if testing.Short() || raceEnabled {
		n = 1000
	}
	s := simple(t, WithForgetFinished(), WithoutTombstones())
	run := func(from, to int) uint64 {
		for i := from; i < to; i++ {
			now := t0.Add(time.Duration(i) * time.Minute)
			id, err := s.Submit(Spec{Name: "job", User: "alice", Request: selectnodes.Request{MinNodes: 1, CPUs: 2}, TimeLimit: time.Hour}, now)
			require.NoError(t, err)
			s.Schedule(now)
			require.NoError(t, s.Finish(id, Outcome{}, now.Add(30*time.Second)))
		}
		return liveHeap()
	}
	small := run(0, n)
	large := run(n, 10*n)
	grew := float64(large) - float64(small)
	t.Logf("live heap after %d jobs %d B, after %d jobs %d B", n, small, 10*n, large)
	// a 16-byte tombstone per job would add 9n x 16 B and more
	assert.Less(t, grew, float64(9*n)*2, "the heap grew by %.0f B over %d more jobs", grew, 9*n)
	runtime.KeepAlive(s)
}
