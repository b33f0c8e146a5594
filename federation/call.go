package federation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// member is the grid's record of one Member.
type member struct {
	m    Member
	name string
	idx  int // in Grid.members
	info Info
	// up is false once a call timed out or failed in transport, until
	// a later call answers.
	up bool
	// known: Info has answered at least once.
	known bool
	// inflight is set while a call runs in its own goroutine; a call
	// abandoned at its deadline keeps it set until the member returns, and
	// no other call is made meanwhile (so a stuck member costs at most
	// one goroutine).
	inflight atomic.Bool
	stop     func()
}

// accepts reports whether the member can take a job of this partition
// and account (the grid-scheduling slides: only clusters with the partition and, when they
// enforce associations, the account are candidates).
func (m *member) accepts(partition, account string) bool {
	if partition != "" && !slices.Contains(m.info.Partitions, partition) {
		return false
	}
	return m.info.Accounts == nil || slices.Contains(m.info.Accounts, account)
}

type result[T any] struct {
	v   T
	err error
}

// call runs f against m within the grid's deadline. With a deadline set
// (WithCallTimeout), f runs in its own goroutine, so a member that ignores
// its context cannot hold the grid: at the deadline the call is abandoned
// and the member marked down. A transport failure (an error that is not
// the member's answer about a job) marks it down too.
func call[T any](g *Grid, ctx context.Context, m *member, f func(context.Context) (T, error)) (T, error) {
	var zero T
	if m.inflight.Load() {
		m.up = false
		return zero, fmt.Errorf("%w: %s: %w", ErrMemberDown, m.name, errNotSent)
	}
	if g.opts.timeout <= 0 {
		v, err := guard(m.name, ctx, f)
		return v, g.classify(m, err)
	}
	cctx, cancel := context.WithTimeout(ctx, g.opts.timeout)
	defer cancel()
	done := make(chan result[T], 1)
	m.inflight.Store(true)
	go func() {
		v, err := guard(m.name, cctx, f)
		m.inflight.Store(false)
		done <- result[T]{v, err}
	}()
	select {
	case r := <-done:
		return r.v, g.classify(m, r.err)
	case <-cctx.Done():
		m.up = false
		return zero, fmt.Errorf("%w: %s: no answer within %s", ErrMemberDown, m.name, g.opts.timeout)
	}
}

// guard runs f, turning a panic of the member into an error that marks it
// down: the call's outcome is unknown, as after a timeout, and the process
// (the grid's goroutine included) goes on.
func guard[T any](name string, ctx context.Context, f func(context.Context) (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("%w: %s: %w: %v", ErrMemberDown, name, ErrMemberPanicked, r)
		}
	}()
	return f(ctx)
}

// call0 is call for functions with no result.
func call0(g *Grid, ctx context.Context, m *member, f func(context.Context) error) error {
	_, err := call(g, ctx, m, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

// classify marks m down on a transport failure (ErrMemberDown, a context
// error) and up on any answer.
func (g *Grid) classify(m *member, err error) error {
	if isDown(err) {
		m.up = false
		if !errors.Is(err, ErrMemberDown) {
			err = fmt.Errorf("%w: %s: %w", ErrMemberDown, m.name, err)
		}
		return err
	}
	if !m.up {
		m.up = true
		g.trigger.Store(true) // a member came back: re-evaluate
	}
	return err
}

// isDown reports whether err says the member did not answer.
func isDown(err error) bool {
	return errors.Is(err, ErrMemberDown) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// errNotSent marks a call that was not made (the member's last call has
// not returned): unlike a call that timed out, it certainly changed
// nothing.
var errNotSent = errors.New("not sent: an earlier call has not returned")

// defaultTimeout bounds every member call unless WithCallTimeout says
// otherwise.
const defaultTimeout = 10 * time.Second
