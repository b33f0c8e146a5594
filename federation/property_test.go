package federation

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// world is a grid of faulty members and what the test saw happen on them.
type world struct {
	t       *testing.T
	r       *rand.Rand
	g       *Grid
	names   []string
	scheds  []*queue.Scheduler
	faults  []*faulty
	ids     []queue.JobID
	mu      sync.Mutex
	starts  map[queue.JobID][]string // member of every start
	ends    map[queue.JobID]int      // ends of a started allocation
	userCxl map[queue.JobID]bool     // cancelled through the grid
	final   map[queue.JobID]queue.State
	now     time.Time
	// clock is now, for the members' controllers: after every call the
	// grid makes to any member, every member schedules (as a controller
	// may between any two calls), so a move that let its source start
	// the job in the middle would be caught.
	clock   atomic.Int64
	hookMu  sync.Mutex
	hookRng *rand.Rand
}

func newWorld(t *testing.T, seed uint64, n int, timeout time.Duration) *world {
	w := &world{t: t, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b9)), starts: map[queue.JobID][]string{},
		ends: map[queue.JobID]int{}, userCxl: map[queue.JobID]bool{}, final: map[queue.JobID]queue.State{}, now: t0}
	w.clock.Store(t0.UnixNano())
	w.hookRng = rand.New(rand.NewPCG(seed, 3))
	w.g = New(NewMemoryIDs(1), WithCallTimeout(timeout), WithMoveThreshold(time.Minute), WithPeriod(3*time.Minute, time.Minute))
	for i := 0; i < n; i++ {
		name := string(rune('a' + i))
		s := sched(t, name, 4, "batch", "extra")
		s.Subscribe(func(e queue.Event) { w.observe(name, e) })
		f := &faulty{Member: NewLocal(name, s), after: w.scheduleAll}
		w.names, w.scheds, w.faults = append(w.names, name), append(w.scheds, s), append(w.faults, f)
	}
	for _, f := range w.faults { // after the world is built: hooks of calls the grid abandons read it
		require.NoError(t, w.g.Add(bg, f))
	}
	return w
}

func (w *world) observe(member string, e queue.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch p := e.Payload.(type) {
	case *queue.StartPayload:
		w.starts[e.Job] = append(w.starts[e.Job], member)
	case *queue.EndPayload:
		if p.End.State != queue.Pending {
			w.ends[e.Job]++
		}
	}
}

// scheduleAll is the members' controllers acting between two calls: now
// and then a running job ends early, and every member schedules.
func (w *world) scheduleAll() {
	now := time.Unix(0, w.clock.Load()).UTC()
	w.hookMu.Lock()
	early := w.hookRng.IntN(40) == 0
	w.hookMu.Unlock()
	for _, s := range w.scheds {
		if early {
			for _, j := range s.Jobs() {
				if j.State == queue.Running {
					_ = s.Finish(j.ID, queue.Outcome{}, now)
					break
				}
			}
		}
		s.Schedule(now)
	}
}

// step does one random operation and advances time.
func (w *world) step() {
	r := w.r
	switch k := r.IntN(100); {
	case k < 35:
		w.submit()
	case k < 40 && len(w.ids) > 0:
		id := w.ids[r.IntN(len(w.ids))]
		// a cancel that got no answer may still happen: the user asked
		if err := w.g.Cancel(bg, id, w.now); err == nil || errors.Is(err, ErrMemberDown) {
			w.userCxl[id] = true
		}
	case k < 43:
		f := w.faults[r.IntN(len(w.faults))]
		f.setDown(!f.down)
	case k < 46:
		f := w.faults[r.IntN(len(w.faults))]
		f.setLose(!f.lose)
	case k < 52:
		s := w.scheds[r.IntN(len(w.scheds))]
		node := s.Cluster().Node(r.IntN(4)).Name
		st := []selectnodes.NodeState{selectnodes.NodeDown, selectnodes.NodeUp, selectnodes.NodeUp}[r.IntN(3)]
		_ = s.SetNodeState(node, st, w.now)
	case k < 70:
		w.finishSome()
	case k < 75 && len(w.ids) > 0:
		id := w.ids[r.IntN(len(w.ids))]
		names := []string{w.names[r.IntN(len(w.names))]}
		if r.IntN(2) == 0 {
			_ = w.g.RemoveCandidates(bg, id, names, w.now)
		} else {
			_ = w.g.AddCandidates(bg, id, names, w.now)
		}
	default:
		w.now = w.now.Add(time.Duration(1+r.IntN(5)) * time.Minute)
	}
	for _, s := range w.scheds {
		s.Tick(w.now)
		s.Schedule(w.now)
	}
	w.clock.Store(w.now.UnixNano())
	w.g.Tick(bg, w.now)
}

func (w *world) submit() {
	r := w.r
	spec := nodesSpec(1+r.IntN(4), time.Duration(5+r.IntN(60))*time.Minute)
	spec.Name = fmt.Sprintf("j%d", r.IntN(5))
	if r.IntN(4) == 0 {
		spec.Request.Partition = "extra"
	}
	if len(w.ids) > 0 && r.IntN(4) == 0 {
		kind := []string{"after", "afterany", "afterok", "afternotok"}[r.IntN(4)]
		spec.Dependency = fmt.Sprintf("%s:%d", kind, w.ids[r.IntN(len(w.ids))])
	} else if r.IntN(10) == 0 {
		spec.Dependency = "singleton"
	}
	var cands []string
	if r.IntN(2) == 0 {
		for _, n := range w.names {
			if r.IntN(2) == 0 {
				cands = append(cands, n)
			}
		}
		if len(cands) == 0 {
			cands = w.names[:1]
		}
	}
	id, err := w.g.Submit(bg, spec, cands, w.now)
	if err == nil {
		w.ids = append(w.ids, id)
	}
}

// finishSome ends a few running jobs early, some failing.
func (w *world) finishSome() {
	for _, s := range w.scheds {
		for _, j := range s.Jobs() {
			if j.State == queue.Running && w.r.IntN(3) == 0 {
				out := queue.Outcome{}
				if w.r.IntN(4) == 0 {
					out = queue.Outcome{Kind: queue.Failure, ExitCode: 2}
				}
				w.finish(s, j.ID, out)
			}
		}
	}
}

// finish ends a running job; a call the grid abandoned may still be
// running on another goroutine, and its controller hook may have ended
// the job first.
func (w *world) finish(s *queue.Scheduler, id queue.JobID, out queue.Outcome) {
	if err := s.Finish(id, out, w.now); err != nil && !errors.Is(err, queue.ErrJobState) {
		w.t.Fatalf("finish %d: %v", id, err)
	}
}

// check is what an observer may see at any instant between operations.
// (Plain ifs: it runs after every operation, and testify's helpers cost
// a stack walk per call.)
func (w *world) check() {
	t := w.t
	for _, id := range w.ids {
		starts, ends := w.seen(id)
		if len(starts) > 1 {
			t.Fatalf("job %d started %d times, on %v", id, len(starts), starts)
		}
		if ends > 1 {
			t.Fatalf("job %d ended %d times", id, ends)
		}
		live := 0 // copies that could run: pending and not held, or running
		for _, s := range w.scheds {
			if j, ok := s.Job(id); ok && (j.State == queue.Pending && !j.Held || j.State == queue.Running || j.State == queue.Suspended) {
				live++
			}
		}
		if live > 1 {
			t.Fatalf("job %d can run on %d members", id, live)
		}
		st, err := w.g.Status(bg, id, w.now)
		if err != nil {
			t.Fatalf("status of job %d: %v", id, err)
		}
		if prev, ok := w.final[id]; ok && prev != st.State {
			t.Fatalf("job %d: terminal state %s became %s", id, prev, st.State)
		} else if !ok && st.State.Terminal() {
			w.final[id] = st.State
		}
		if st.State != queue.Running {
			continue
		}
		if starts = w.startsOf(id); len(starts) != 1 || starts[0] != st.Member {
			t.Fatalf("job %d runs on %v, the grid says %q", id, starts, st.Member)
		}
	}
}

// startsOf is where job id started, once its start's event has come: a
// member delivers events after the change and outside its lock, so a call
// the grid abandoned may have started the job on another goroutine whose
// event is still on its way. It waits a while for a first start, no more.
func (w *world) startsOf(id queue.JobID) []string {
	for wait := 0; ; wait++ {
		starts, _ := w.seen(id)
		if len(starts) > 0 || wait == 2000 {
			return starts
		}
		time.Sleep(time.Millisecond)
	}
}

// seen is where job id started and how often it ended, so far.
func (w *world) seen(id queue.JobID) ([]string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.starts[id]), w.ends[id]
}

// drain revives everything and runs the world until every grid job ends.
func (w *world) drain() {
	for _, f := range w.faults {
		f.setDown(false)
		f.setLose(false)
	}
	for _, s := range w.scheds {
		for i := 0; i < 4; i++ {
			_ = s.SetNodeState(s.Cluster().Node(i).Name, selectnodes.NodeUp, w.now)
		}
	}
	for round := 0; round < 500; round++ {
		w.now = w.now.Add(10 * time.Minute)
		w.clock.Store(w.now.UnixNano())
		w.g.Reevaluate(bg, w.now)
		for _, s := range w.scheds {
			for _, j := range s.Jobs() {
				if j.State == queue.Running {
					w.finish(s, j.ID, queue.Outcome{})
				}
			}
			s.Schedule(w.now)
		}
		open := 0
		for _, id := range w.ids {
			st, err := w.g.Status(bg, id, w.now)
			require.NoError(w.t, err)
			if st.State.Terminal() {
				continue
			}
			open++
			if st.Reason == string(queue.ReasonDependencyNeverSatisfied) && w.g.Cancel(bg, id, w.now) == nil {
				w.userCxl[id] = true
			}
		}
		w.check()
		if open == 0 {
			return
		}
	}
	w.t.Fatalf("jobs still open after draining")
}

// verify: every job ended exactly once, where the grid says.
func (w *world) verify() {
	for _, id := range w.ids {
		st, err := w.g.Status(bg, id, w.now)
		require.NoError(w.t, err)
		require.True(w.t, st.State.Terminal(), "job %d: %s", id, st.State)
		starts := w.starts[id]
		if len(starts) == 0 {
			require.True(w.t, w.userCxl[id], "job %d never ran and nobody cancelled it: lost: %+v", id, st)
			require.Equal(w.t, queue.Cancelled, st.State)
			continue
		}
		require.Equal(w.t, 1, w.ends[id], "job %d", id)
		require.Equal(w.t, starts[0], st.Member)
		j, _ := w.scheds[int(starts[0][0]-'a')].Job(id)
		require.Equal(w.t, j.State, st.State)
	}
}

func propertySteps() (seeds, steps int) {
	if os.Getenv("FEDERATION_LONG") != "" {
		return 8, 1500
	}
	if testing.Short() || raceEnabled {
		return 3, 250
	}
	return 6, 600
}

// TestPropertyNeverTwiceNeverLost kills and revives members under random
// operations (submissions with dependencies and candidates, cancels,
// node failures, early ends, candidate changes) and checks after every
// operation that no job can run on two members and none started twice,
// and at the end that every job ended exactly once (or was cancelled).
func TestPropertyNeverTwiceNeverLost(t *testing.T) {
	seeds, steps := propertySteps()
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			w := newWorld(t, uint64(seed), 3, 0)
			for i := 0; i < steps; i++ {
				w.step()
				w.check()
			}
			w.drain()
			w.verify()
			st := w.g.Stats()
			require.Positive(t, st.Submitted)
			t.Logf("submitted %d, moves %d, aborted %d, replaced %d", st.Submitted, st.Moves, st.Aborted, st.Replaced)
		})
	}
}

// TestPropertyBlockingMembers is the same with members that hang (calls
// time out and are abandoned) and members that schedule on their own
// while the grid moves jobs, and an observer reading the grid
// concurrently: what it sees of a job never goes back once terminal.
func TestPropertyBlockingMembers(t *testing.T) {
	_, steps := propertySteps()
	w := newWorld(t, 99, 3, 2*time.Millisecond)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // an observer of the grid's API
		defer wg.Done()
		seen := map[queue.JobID]queue.State{}
		for {
			select {
			case <-stop:
				return
			default:
			}
			for id := queue.JobID(1); id < 50; id++ {
				st, err := w.g.Status(bg, id, t0)
				if err != nil {
					continue
				}
				if prev, ok := seen[id]; ok && prev.Terminal() {
					if st.State != prev {
						t.Errorf("job %d: %s then %s", id, prev, st.State)
					}
				}
				seen[id] = st.State
			}
		}
	}()
	for i := 0; i < steps/2; i++ {
		if i%25 == 0 {
			f := w.faults[w.r.IntN(3)]
			f.block()
			defer f.unblock()
		}
		if i%25 == 12 {
			for _, f := range w.faults {
				f.unblock()
			}
		}
		w.step()
		w.check()
	}
	for _, f := range w.faults {
		f.unblock()
	}
	require.Eventually(t, func() bool {
		for _, f := range w.faults {
			if w.g.busy(f.Name()) {
				return false
			}
		}
		return true
	}, 5*time.Second, time.Millisecond)
	w.drain()
	close(stop)
	wg.Wait()
	w.verify()
}

// busy reports whether a call to member name is still outstanding.
func (g *Grid) busy(name string) bool { return g.byName[name].inflight.Load() }
