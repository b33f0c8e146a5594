package federation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

var bg = context.Background()

// sched is a scheduler on n nodes of 4 CPUs named <prefix>[0-(n-1)] with
// the given partitions (all nodes each; the first the default).
func sched(t testing.TB, prefix string, n int, parts ...string) *queue.Scheduler {
	t.Helper()
	if len(parts) == 0 {
		parts = []string{"batch"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "NodeName=%s[0-%d] CPUs=4\n", prefix, n-1)
	for i, p := range parts {
		fmt.Fprintf(&b, "PartitionName=%s Nodes=ALL Default=%s\n", p, map[bool]string{true: "YES", false: "NO"}[i == 0])
	}
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	return queue.New(c, queue.WithFirstJobID(1_000_000))
}

func nodesSpec(n int, limit time.Duration) queue.Spec {
	return queue.Spec{Name: "job", User: "u", Request: selectnodes.Request{MinNodes: n}, TimeLimit: limit}
}

// newGrid is a grid over the given members, with inline calls.
func newGrid(t testing.TB, ms ...Member) *Grid {
	t.Helper()
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithMoveThreshold(time.Minute))
	for _, m := range ms {
		require.NoError(t, g.Add(bg, m))
	}
	return g
}

// faulty wraps a member: down makes every call fail as a lost
// connection; lose carries every call out but loses the answer; block
// makes every call wait until unblocked, ignoring its context (a
// controller that hangs).
type faulty struct {
	Member
	mu    sync.Mutex
	down  bool
	lose  bool          // lose some answers (one in three)
	rng   *rand.Rand    // which ones
	gate  chan struct{} // non-nil while blocking
	calls int
	after func() // run after every call carried out
}

func (f *faulty) setLose(l bool) {
	f.mu.Lock()
	f.lose = l
	if f.rng == nil {
		f.rng = rand.New(rand.NewPCG(uint64(f.calls), 7))
	}
	f.mu.Unlock()
}

// answer is what the caller hears of err: nothing when answers are lost.
func (f *faulty) answer(err error) error {
	if f.after != nil {
		f.after()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lose && f.rng.IntN(3) == 0 {
		return fmt.Errorf("%w: answer lost", ErrMemberDown)
	}
	return err
}

func (f *faulty) setDown(d bool) { f.mu.Lock(); f.down = d; f.mu.Unlock() }

func (f *faulty) block() { f.mu.Lock(); f.gate = make(chan struct{}); f.mu.Unlock() }

func (f *faulty) unblock() {
	f.mu.Lock()
	if f.gate != nil {
		close(f.gate)
		f.gate = nil
	}
	f.mu.Unlock()
}

func (f *faulty) enter() error {
	f.mu.Lock()
	f.calls++
	gate, down := f.gate, f.down
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if down {
		return fmt.Errorf("%w: connection refused", ErrMemberDown)
	}
	return nil
}

func (f *faulty) Info(ctx context.Context) (Info, error) {
	if err := f.enter(); err != nil {
		return Info{}, err
	}
	info, err := f.Member.Info(ctx)
	return info, f.answer(err)
}

func (f *faulty) Estimate(ctx context.Context, q EstimateQuery, now time.Time) (EstimateReply, error) {
	if err := f.enter(); err != nil {
		return EstimateReply{}, err
	}
	rep, err := f.Member.Estimate(ctx, q, now)
	return rep, f.answer(err)
}

func (f *faulty) Submit(ctx context.Context, s queue.Spec, now time.Time) error {
	if err := f.enter(); err != nil {
		return err
	}
	return f.answer(f.Member.Submit(ctx, s, now))
}

func (f *faulty) Hold(ctx context.Context, id queue.JobID, now time.Time) error {
	if err := f.enter(); err != nil {
		return err
	}
	return f.answer(f.Member.Hold(ctx, id, now))
}

func (f *faulty) Release(ctx context.Context, id queue.JobID, now time.Time) error {
	if err := f.enter(); err != nil {
		return err
	}
	return f.answer(f.Member.Release(ctx, id, now))
}

func (f *faulty) Cancel(ctx context.Context, id queue.JobID, now time.Time) error {
	if err := f.enter(); err != nil {
		return err
	}
	return f.answer(f.Member.Cancel(ctx, id, now))
}

func (f *faulty) Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	infos, err := f.Member.Jobs(ctx, ids)
	return infos, f.answer(err)
}
