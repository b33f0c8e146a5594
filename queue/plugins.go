package queue

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Code is what a plugin answers, as kube-scheduler's framework codes do.
type Code uint8

const (
	// Success lets the operation go on.
	Success Code = iota
	// Refuse: at admission, the submission or update is rejected; at
	// Reserve, the job stays pending with the plugin's reason and is tried
	// again on a later pass.
	Refuse
	// Hold: at Reserve, the job is held (pending, ReasonHeld) until
	// released; at admission, the job is accepted held.
	Hold
	// Fail: at Reserve, the job fails (FAILED) with the plugin's reason.
	Fail
	// Error: the plugin itself failed (a ledger out of reach, say); the
	// job stays pending with the error as its reason.
	Error
)

var codeNames = [...]string{"Success", "Refuse", "Hold", "Fail", "Error"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Status is a plugin's answer: a code and the reasons a user is shown.
// A nil *Status is Success.
type Status struct {
	Code    Code
	Reasons []string
}

// NewStatus returns a status with code c and the given reasons.
func NewStatus(c Code, reasons ...string) *Status {
	return &Status{Code: c, Reasons: reasons}
}

// IsSuccess reports whether s lets the operation go on (nil is success).
func (s *Status) IsSuccess() bool { return s == nil || s.Code == Success }

// Message joins the reasons ("" for none).
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	if len(s.Reasons) == 0 {
		return s.Code.String()
	}
	return strings.Join(s.Reasons, "; ")
}

// Plugin is anything that hooks into the scheduler. A plugin implements
// one or more of AdmitPlugin, ReservePlugin and ReleasePlugin; WithPlugins
// registers it at every extension point it implements, in the order given.
type Plugin interface {
	// Name names the plugin in reasons and errors.
	Name() string
}

// AdmitPlugin sees every submission (Submit) and every change of a
// pending job's request (Update) before the scheduler does. It may rewrite
// *spec (default an account or a partition, say) or refuse it; a refusal
// is returned to the caller as a *StatusError and changes nothing. Admit
// runs before the scheduler takes its lock: it may call the scheduler's
// read methods.
type AdmitPlugin interface {
	Plugin
	Admit(ctx context.Context, spec *Spec, now time.Time) *Status
}

// ReservePlugin is asked before a job starts: a job starts only if every
// Reserve succeeds. When one refuses, the Reserves that succeeded before it
// are undone with Unreserve, in reverse order, and the job stays pending,
// is held or fails as the Status's code says, with the reason. Unreserve
// is also called when the start fails after every Reserve succeeded. It
// gets the placement Reserve was given (an equal copy): the job itself
// has no placement yet (job.Placement is nil, or its last run's after a
// requeue). A start that happened is undone by ReleasePlugin instead.
//
// Reserve and Unreserve run under the scheduler's lock, so a reservation
// and the start it guards are one step: they must not call the Scheduler
// (that deadlocks), and should be quick or bounded by ctx.
//
// A panic in Reserve is the Status Error (the job stays pending, the
// panic in its ReasonDetail), so the Reserves before it are undone as for
// any refusal; a panic in Unreserve is passed over and the earlier
// plugins are still undone. Either goes to the WithPanicHandler function.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, job *Job, p *selectnodes.Placement, now time.Time) *Status
	Unreserve(ctx context.Context, job *Job, p *selectnodes.Placement, now time.Time)
}

// JobEnd is how a started job's allocation ended, for ReleasePlugin.
type JobEnd struct {
	// State is the job's state after the end: a terminal state, or
	// Pending when it was requeued.
	State State
	// Outcome is what Finish was told (zero for cancel, timeout, requeue
	// and node-down ends, where State says what happened).
	Outcome Outcome
	// Elapsed is the time the job ran, suspended time excluded.
	Elapsed time.Duration
	// NodeFailure: a node failure ended it (bill nothing, the HADM paper).
	NodeFailure bool
}

// ReleasePlugin is told when a started job's allocation ends: it finished,
// failed, timed out, was cancelled or requeued, or lost a node. It runs
// under the scheduler's lock, like ReservePlugin, with the same rules. A
// panic in Release does not stop the end: the job ends, its event is sent,
// the ReleasePlugins after it are still told, and the panic goes to the
// WithPanicHandler function.
type ReleasePlugin interface {
	Plugin
	Release(ctx context.Context, job *Job, end JobEnd, now time.Time)
}

// WithPlugins registers plugins at every extension point each implements,
// in the order given.
// A nil plugin panics.
func WithPlugins(ps ...Plugin) Option {
	for i, p := range ps {
		if p == nil {
			panic(fmt.Sprintf("queue.WithPlugins: ps[%d] is nil", i))
		}
	}
	return func(o *options) {
		for _, p := range ps {
			if a, ok := p.(AdmitPlugin); ok {
				o.admit = append(o.admit, a)
			}
			if r, ok := p.(ReservePlugin); ok {
				o.reserve = append(o.reserve, r)
			}
			if r, ok := p.(ReleasePlugin); ok {
				o.release = append(o.release, r)
			}
		}
	}
}

// runAdmit passes spec through every AdmitPlugin.
func (s *Scheduler) runAdmit(ctx context.Context, spec *Spec, now time.Time) error {
	for _, a := range s.opts.admit {
		st := a.Admit(ctx, spec, now)
		switch {
		case st.IsSuccess():
		case st.Code == Hold:
			spec.Hold = true
		default:
			return &StatusError{Plugin: a.Name(), Status: st}
		}
	}
	return nil
}

// runReserve asks every ReservePlugin; on a refusal it undoes the ones
// that succeeded and returns the refusing plugin and its status.
func (s *Scheduler) runReserve(ctx context.Context, j *job, p *selectnodes.Placement, now time.Time) (string, *Status) {
	if len(s.opts.reserve) == 0 {
		return "", nil // no copy of the job to hand to nobody
	}
	for i, r := range s.opts.reserve {
		st := s.callReserve(ctx, r, j, p, now)
		if st.IsSuccess() {
			continue
		}
		s.runUnreserve(ctx, j, p, i, now)
		return r.Name(), st
	}
	return "", nil
}

// runUnreserve undoes the first n reservations of placement p, last
// first.
func (s *Scheduler) runUnreserve(ctx context.Context, j *job, p *selectnodes.Placement, n int, now time.Time) {
	for i := n - 1; i >= 0; i-- {
		s.callUnreserve(ctx, s.opts.reserve[i], j, p, now)
	}
}

// runRelease tells every ReleasePlugin that j's allocation ended.
func (s *Scheduler) runRelease(ctx context.Context, j *job, end JobEnd, now time.Time) {
	if len(s.opts.release) == 0 {
		return
	}
	for _, r := range s.opts.release {
		s.callRelease(ctx, r, j, end, now)
	}
}
