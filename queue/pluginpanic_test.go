package queue

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// boomPlugin records its calls and panics in the methods it is told to.
type boomPlugin struct {
	name                      string
	reserve, unreserve, relse bool
	refuse                    bool
	calls                     *[]string
}

func (p *boomPlugin) Name() string { return p.name }

func (p *boomPlugin) note(what string, id JobID) {
	*p.calls = append(*p.calls, fmt.Sprintf("%s %s %d", p.name, what, id))
}

func (p *boomPlugin) Reserve(_ context.Context, j *Job, _ *selectnodes.Placement, _ time.Time) *Status {
	p.note("reserve", j.ID)
	if p.reserve {
		panic("reserve boom")
	}
	if p.refuse {
		return NewStatus(Refuse, "no")
	}
	return nil
}

func (p *boomPlugin) Unreserve(_ context.Context, j *Job, _ *selectnodes.Placement, _ time.Time) {
	p.note("unreserve", j.ID)
	if p.unreserve {
		panic("unreserve boom")
	}
}

func (p *boomPlugin) Release(_ context.Context, j *Job, _ JobEnd, _ time.Time) {
	p.note("release", j.ID)
	if p.relse {
		panic("release boom")
	}
}

// panicLog collects what the panic handler is given.
type panicLog struct{ got []string }

func (l *panicLog) handler(v any, e Event) {
	l.got = append(l.got, fmt.Sprintf("%v seq=%d job=%d %s", v, e.Seq, e.Job, e.Detail))
}

func TestReservePanicUndoesTheEarlierReserves(t *testing.T) {
	var calls []string
	var pl panicLog
	a := &boomPlugin{name: "a", calls: &calls}
	b := &boomPlugin{name: "b", reserve: true, calls: &calls}
	s := simple(t, WithPlugins(a, b), WithPanicHandler(pl.handler))
	var rec recorder
	s.Subscribe(rec.on)
	id := submit(t, s, nodes(1, time.Hour), t0)
	require.NotPanics(t, func() { s.Schedule(t0) })
	require.Equal(t, []string{"a reserve 1", "b reserve 1", "a unreserve 1"}, calls)
	j, _ := s.Job(id)
	require.Equal(t, Pending, j.State)
	require.Equal(t, ReasonRefused, j.Reason)
	require.Contains(t, j.ReasonDetail, "b panicked in Reserve: reserve boom")
	require.Equal(t, "submit:1 refused:1", rec.kinds())
	require.Equal(t, []string{"reserve boom seq=0 job=1 b panicked in Reserve: reserve boom"}, pl.got)
	require.Empty(t, s.Cluster().Running())

	// once the plugin behaves, the job starts
	b.reserve = false
	require.Len(t, s.Schedule(at(1)), 1)
}

func TestUnreservePanicStillUndoesTheOthers(t *testing.T) {
	var calls []string
	a := &boomPlugin{name: "a", calls: &calls}
	b := &boomPlugin{name: "b", unreserve: true, calls: &calls}
	c := &boomPlugin{name: "c", refuse: true, calls: &calls}
	s := simple(t, WithPlugins(a, b, c))
	submit(t, s, nodes(1, time.Hour), t0)
	require.NotPanics(t, func() { s.Schedule(t0) })
	require.Equal(t, []string{"a reserve 1", "b reserve 1", "c reserve 1", "b unreserve 1", "a unreserve 1"}, calls)
}

func TestReleasePanicDoesNotStopTheEnd(t *testing.T) {
	for _, end := range []string{"finish", "node down", "requeue"} {
		t.Run(end, func(t *testing.T) {
			var calls []string
			var pl panicLog
			a := &boomPlugin{name: "a", relse: true, calls: &calls}
			b := &boomPlugin{name: "b", calls: &calls}
			s := simple(t, WithPlugins(a, b), WithPanicHandler(pl.handler))
			var rec recorder
			s.Subscribe(rec.on)
			id := submit(t, s, nodes(1, time.Hour), t0)
			require.Len(t, s.Schedule(t0), 1)
			calls = nil
			require.NotPanics(t, func() {
				switch end {
				case "finish":
					require.NoError(t, s.Finish(id, Outcome{}, at(1)))
				case "node down":
					require.NoError(t, s.SetNodeState("n0", selectnodes.NodeDown, at(1)))
				case "requeue":
					require.NoError(t, s.Requeue(id, at(1)))
				}
			})
			require.Equal(t, []string{"a release 1", "b release 1"}, calls, "every ReleasePlugin hears the end")
			j, _ := s.Job(id)
			last := rec.events[len(rec.events)-1]
			require.Equal(t, j.State, last.State, "the end's event is sent")
			require.Equal(t, id, last.Job)
			require.Len(t, pl.got, 1)
			require.True(t, strings.HasPrefix(pl.got[0], "release boom seq=0 job=1 a panicked in Release"), pl.got[0])
			require.NoError(t, s.Cluster().CheckInvariants())
		})
	}
}

func TestPanickingHandlerDoesNotStopDelivery(t *testing.T) {
	s := simple(t, WithPanicHandler(func(any, Event) { panic("handler boom") }))
	s.Subscribe(func(Event) { panic("subscriber boom") })
	var rec recorder
	s.Subscribe(rec.on)
	require.NotPanics(t, func() { submit(t, s, nodes(1, time.Hour), t0) })
	submit(t, s, nodes(1, time.Hour), t0)
	s.Schedule(t0)
	require.Equal(t, "submit:1 submit:2 start:1 start:2", rec.kinds())
}

func TestSubscriberEndingItsGoroutineDoesNotStopDelivery(t *testing.T) {
	s := simple(t)
	first := true
	s.Subscribe(func(Event) {
		if first {
			first = false
			runtime.Goexit()
		}
	})
	var rec recorder
	s.Subscribe(rec.on)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Submit(nodes(1, time.Hour), t0)
	}()
	<-done
	submit(t, s, nodes(1, time.Hour), t0)
	require.Equal(t, "submit:2", rec.kinds(), "the second call's event is delivered")
}

// holdPlugin holds every job it is asked about.
type holdPlugin struct{}

func (holdPlugin) Name() string { return "hold" }
func (holdPlugin) Reserve(context.Context, *Job, *selectnodes.Placement, time.Time) *Status {
	return NewStatus(Hold, "over quota")
}
func (holdPlugin) Unreserve(context.Context, *Job, *selectnodes.Placement, time.Time) {}

// Release lifts a plugin's hold and the reason it gave with it.
func TestReleaseClearsTheHoldsDetail(t *testing.T) {
	s := simple(t, WithPlugins(holdPlugin{}))
	id := submit(t, s, nodes(1, time.Hour), t0)
	s.Schedule(t0)
	j, _ := s.Job(id)
	require.True(t, j.Held)
	require.Equal(t, "hold: over quota", j.ReasonDetail)
	require.NoError(t, s.Release(id, at(1)))
	j, _ = s.Job(id)
	require.False(t, j.Held)
	require.Empty(t, j.ReasonDetail)
}
