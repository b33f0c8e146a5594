package federation

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// panicky wraps a member whose chosen method panics once armed.
type panicky struct {
	Member
	mu     sync.Mutex
	method string
	armed  bool
}

func (p *panicky) arm(method string) { p.mu.Lock(); p.method, p.armed = method, true; p.mu.Unlock() }

func (p *panicky) maybe(method string) {
	p.mu.Lock()
	boom := p.armed && p.method == method
	p.mu.Unlock()
	if boom {
		panic(fmt.Sprintf("member bug in %s", method))
	}
}

func (p *panicky) Name() string { p.maybe("Name"); return p.Member.Name() }

func (p *panicky) Info(ctx context.Context) (Info, error) { p.maybe("Info"); return p.Member.Info(ctx) }

func (p *panicky) Estimate(ctx context.Context, q EstimateQuery, now time.Time) (EstimateReply, error) {
	p.maybe("Estimate")
	return p.Member.Estimate(ctx, q, now)
}

func (p *panicky) Submit(ctx context.Context, s queue.Spec, now time.Time) error {
	p.maybe("Submit")
	return p.Member.Submit(ctx, s, now)
}

func (p *panicky) Hold(ctx context.Context, id queue.JobID, now time.Time) error {
	p.maybe("Hold")
	return p.Member.Hold(ctx, id, now)
}

func (p *panicky) Release(ctx context.Context, id queue.JobID, now time.Time) error {
	p.maybe("Release")
	return p.Member.Release(ctx, id, now)
}

func (p *panicky) Cancel(ctx context.Context, id queue.JobID, now time.Time) error {
	p.maybe("Cancel")
	return p.Member.Cancel(ctx, id, now)
}

func (p *panicky) Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error) {
	p.maybe("Jobs")
	return p.Member.Jobs(ctx, ids)
}

func (p *panicky) Watch(f func(queue.Event)) func() {
	p.maybe("Watch")
	return p.Member.(Watcher).Watch(f)
}

// callModes are the grid's two ways of calling members: inline, and in a
// goroutine of the call's own (where an unrecovered panic ends the
// process, not just the call).
var callModes = []struct {
	name    string
	timeout time.Duration
}{{"inline", 0}, {"goroutine", time.Minute}}

func memberUp(g *Grid, name string) bool {
	for _, m := range g.Members() {
		if m.Name == name {
			return m.Up
		}
	}
	panic("no member " + name)
}

// A member whose Name, Info or Watch panics does not take Add (and the
// process) down with it.
func TestAddPanickingMember(t *testing.T) {
	for _, mode := range callModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, method := range []string{"Name", "Info", "Watch"} {
				t.Run(method, func(t *testing.T) {
					g := New(NewMemoryIDs(1), WithCallTimeout(mode.timeout))
					p := &panicky{Member: NewLocal("a", sched(t, "a", 2))}
					p.arm(method)
					var err error
					require.NotPanics(t, func() { err = g.Add(bg, p) })
					switch method {
					case "Name":
						require.ErrorIs(t, err, ErrMemberPanicked)
						assert.Empty(t, g.Members(), "a member without a name is not added")
					case "Info":
						require.NoError(t, err, "a member whose Info fails joins down")
						assert.False(t, memberUp(g, "a"))
					case "Watch":
						require.ErrorIs(t, err, ErrMemberPanicked)
						assert.False(t, memberUp(g, "a"))
					}
				})
			}
		})
	}
}

// Every grid call that calls members survives a member that panics: the
// call returns (with an error where the member's answer was needed) and
// the member is treated as down.
func TestGridCallsSurvivePanickingMember(t *testing.T) {
	type setup struct {
		g      *Grid
		pa, pb *panicky
		id     queue.JobID // pending on a; b would start it sooner
	}
	// moveScene is TestReevaluateMovesWhenAnotherClusterFreesEarly's: the
	// job waits on a, and b frees up, so the next pass moves it.
	moveScene := func(t *testing.T, timeout time.Duration) setup {
		a, b := sched(t, "a", 4), sched(t, "b", 4)
		fill(t, a, 4*time.Hour)
		blocker := fill(t, b, 8*time.Hour)
		pa, pb := &panicky{Member: NewLocal("a", a)}, &panicky{Member: NewLocal("b", b)}
		g := New(NewMemoryIDs(1), WithCallTimeout(timeout), WithMoveThreshold(time.Minute))
		require.NoError(t, g.Add(bg, pa))
		require.NoError(t, g.Add(bg, pb))
		id, err := g.Submit(bg, nodesSpec(4, time.Hour), nil, at(1))
		require.NoError(t, err)
		st, err := g.Status(bg, id, at(1))
		require.NoError(t, err)
		require.Equal(t, "a", st.Member)
		require.NoError(t, b.Finish(blocker, queue.Outcome{}, at(10)))
		return setup{g, pa, pb, id}
	}
	tests := []struct {
		name, member, method string
		call                 func(s setup) error
		wantErr              bool // the call needed the member's answer
	}{
		{"Submit/Estimate", "a", "Estimate", func(s setup) error {
			_, err := s.g.Submit(bg, nodesSpec(1, time.Hour), nil, at(10))
			return err
		}, false},
		{"Submit/Submit", "b", "Submit", func(s setup) error {
			_, err := s.g.Submit(bg, nodesSpec(1, time.Hour), []string{"b"}, at(10))
			return err
		}, false}, // outcome unknown: the job waits for b's word
		{"Status/Jobs", "a", "Jobs", func(s setup) error {
			st, err := s.g.Status(bg, s.id, at(10))
			if err == nil && !st.Stale {
				return fmt.Errorf("status not marked stale")
			}
			return err
		}, false},
		{"Cancel/Cancel", "a", "Cancel", func(s setup) error { return s.g.Cancel(bg, s.id, at(10)) }, true},
		{"Reevaluate/Jobs", "a", "Jobs", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Reevaluate/Estimate", "b", "Estimate", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Reevaluate/Hold", "a", "Hold", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Reevaluate/Submit", "b", "Submit", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Reevaluate/Cancel", "a", "Cancel", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Reevaluate/Release", "b", "Release", func(s setup) error { s.g.Reevaluate(bg, at(10)); return nil }, false},
		{"Tick/Jobs", "a", "Jobs", func(s setup) error { s.g.Tick(bg, at(10)); return nil }, false},
		{"RemoveCandidates/Hold", "a", "Hold", func(s setup) error {
			return s.g.RemoveCandidates(bg, s.id, []string{"a"}, at(10))
		}, false}, // the eviction is retried on later passes, as after a timeout
	}
	for _, mode := range callModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					s := moveScene(t, mode.timeout)
					p := map[string]*panicky{"a": s.pa, "b": s.pb}[tt.member]
					p.arm(tt.method)
					var err error
					require.NotPanics(t, func() { err = tt.call(s) })
					if tt.wantErr {
						require.ErrorIs(t, err, ErrMemberPanicked)
						require.ErrorIs(t, err, ErrMemberDown)
					} else {
						require.NoError(t, err)
					}
					assert.False(t, memberUp(s.g, tt.member), "a member that panicked is down")
					// the grid goes on: the job is known, never on two members at once
					_, err = s.g.Status(bg, s.id, at(11))
					require.NoError(t, err)
				})
			}
		})
	}
}

// New's arguments are not optional: a nil one panics with a message
// naming it, not with a nil dereference later.
func TestNewNilArguments(t *testing.T) {
	assert.PanicsWithValue(t, "federation.New: ids (IDSource) is nil; use NewMemoryIDs for IDs in process",
		func() { New(nil) })
	assert.PanicsWithValue(t, "federation.New: option 1 is nil",
		func() { New(NewMemoryIDs(1), WithCallTimeout(0), nil) })
	err := New(NewMemoryIDs(1)).Add(bg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Grid.Add: the member is nil")
}
