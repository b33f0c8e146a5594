package queue

import "github.com/hpcsched/hpcsched/selectnodes"

// A replay calls Schedule after every event, and after a submission alone
// the queue's head is the job the last pass found busy, on a cluster that
// has not changed: its selection fails again, the same way. busyMemo keeps
// the last busy failure of a selection that withheld no nodes (no
// partition was locked yet in its pass) — the job (IDs are never used
// twice, even after Forget), the count of Updates applied (an
// update may change the job's request) and the cluster's Changes at the
// failure — and answers that job's next such selection with it while none
// of them moves. A RunNow selection reads nothing else that can move (the
// load, node states and partitions are all counted by Changes; the time is
// not read), so the answer is the one the selection would give.
type busyMemo struct {
	job              JobID
	updates, changes uint64
	err              error // nil: nothing kept
	hits             int   // answers given, for tests
}

// answer is the kept failure for j's selection, or nil when the selection
// must run.
func (m *busyMemo) answer(s *Scheduler, ps *passState, j *job) error {
	if m.err == nil || len(ps.locked) > 0 || s.noBusyMemo || m.job != j.ID ||
		m.updates != s.updates || m.changes != s.c.Changes() {
		return nil
	}
	m.hits++
	return m.err
}

// note keeps err when j's selection, withholding no nodes, failed busy.
// (A failure kept for j need not go when j's selection answers otherwise:
// on the same inputs it would not, so the inputs moved and the kept one
// no longer answers.)
func (m *busyMemo) note(s *Scheduler, ps *passState, j *job, err error) {
	if len(ps.locked) > 0 || err == nil || !isSelectClass(err, selectnodes.ErrBusy) {
		return
	}
	m.job, m.updates, m.changes, m.err = j.ID, s.updates, s.c.Changes(), err
}
