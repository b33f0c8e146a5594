package queue

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// isSelectClass and asSelectError must answer as errors.Is and errors.As
// do, for a selection's own error, a wrapped one, one with a cause, and
// errors from elsewhere.
func TestSelectClassAgreesWithErrors(t *testing.T) {
	cause := errors.New("a cause")
	busy := &selectnodes.Error{Class: selectnodes.ErrBusy, Reason: "busy"}
	errs := []error{
		nil,
		busy,
		&selectnodes.Error{Class: selectnodes.ErrNodeConfig},
		&selectnodes.Error{Class: selectnodes.ErrInvalidRequest, Cause: cause},
		&selectnodes.Error{Class: selectnodes.ErrHeld, Cause: selectnodes.ErrBusy},
		fmt.Errorf("wrapped: %w", busy),
		selectnodes.ErrBusy,
		cause,
	}
	classes := []error{selectnodes.ErrBusy, selectnodes.ErrHeld, selectnodes.ErrNodeConfig,
		selectnodes.ErrInvalidRequest, cause}
	for i, err := range errs {
		for _, class := range classes {
			if got, want := isSelectClass(err, class), errors.Is(err, class); got != want {
				t.Errorf("error %d (%v), class %v: isSelectClass %v, errors.Is %v", i, err, class, got, want)
			}
		}
		var want *selectnodes.Error
		errors.As(err, &want)
		if got := asSelectError(err); got != want {
			t.Errorf("error %d (%v): asSelectError %p, errors.As %p", i, err, got, want)
		}
	}
}

// A failed selection's class is read without allocating: passes ask it of
// most jobs they look at.
func TestSelectClassDoesNotAllocate(t *testing.T) {
	var err error = &selectnodes.Error{Class: selectnodes.ErrBusy}
	allocs := testing.AllocsPerRun(100, func() {
		if isSelectClass(err, selectnodes.ErrNodeConfig) || !isSelectClass(err, selectnodes.ErrBusy) {
			t.Fatal("wrong class")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call, want 0", allocs)
	}
}

// A Schedule pass copies a job's request for its selection into storage
// kept for it, not into a new heap copy per selection, and keeps none of
// the job's slices after: a pass that tries one job and finds the cluster
// full allocates only the pass's own few objects.
func TestScheduleSelectionKeepsNoRequestCopy(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations")
	}
	s := simple(t)
	for range 3 {
		submit(t, s, nodes(4, time.Hour), at(0)) // two run, one waits
	}
	s.Schedule(at(1))
	var ids []JobID
	allocs := testing.AllocsPerRun(50, func() {
		ids = s.ScheduleIDs(at(2), ids[:0])
	})
	if allocs > 3 {
		t.Errorf("a pass trying one job allocates %v times, want at most 3", allocs)
	}
	if s.selReq.Features != nil || s.selReq.ExcludeNodes != nil || s.selReq.MinNodes != 0 {
		t.Errorf("the selection's request is kept after the pass: %+v", s.selReq)
	}
}
