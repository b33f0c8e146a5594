package queue

import (
	"math"
	"time"
)

// A job whose full plan found no start within the backfill window (busy)
// is left without a reservation, and so without the certificate a
// reservation gets: on a backlogged trace such jobs were planned in full
// at every pass, each walking every slot up to the window's end. The
// certificate below keeps such a job busy without a plan.
//
// The plan tried, or ruled out by count, every slot start up to the
// first slot start past its window (untried). A later start b before
// untried lies in a slot of that plan's profile starting no later than
// the window's end, so at a start the plan ruled out; b's window reaches
// at least as far, and on a profile with no more room (the log, as for a
// reservation's certificate: nothing freed before untried plus the job's
// length with a run as long as the job) it is ruled out too. So while
// the new window ends before untried, a full plan finds no start again;
// room taken cannot change that, so only freed room voids the
// certificate. The outcome is busy and not an error when the job's shape
// is admitted on the idle cluster (the memo earliest itself reads).

// certifyBusy writes j's certificate after a full plan that found no
// start within the window, when the plan qualifies as certify's does.
func (b *bfRun) certifyBusy(j *job, reachedStart bool) {
	old, k, ok := b.takeCert(j, reachedStart)
	if !ok {
		return
	}
	b.checkPartition(j.Partition)
	if old == nil {
		old = new(skipCert)
	}
	last := b.pass.untried - 1 // every start up to it was tried or ruled out
	*old = skipCert{seq: b.skip.seq, d: j.expectedEnd(b.now).Sub(b.now), timeLimit: j.TimeLimit, key: k,
		updates: b.s.updates, mostCPUs: b.s.maxNodeCPUs(), most: math.MaxInt, lastTried: time.Unix(0, last), lastAt: last, busy: true}
	b.skip.certs.set(j.ID, old)
}

// busyStill reports whether busy certificate c may still stand at this
// pass as far as the window and the job go (keep checks the log): the
// window ends before the first start c's plan left untried, j holds no
// reservation, and its shape is admitted (see above).
func (b *bfRun) busyStill(j *job, c *skipCert) bool {
	if laterAt(b.nowAt, b.s.opts.bfWindow) > c.lastAt {
		return false
	}
	if _, has := b.s.resv[j.ID]; has || !b.s.admittedBefore(&j.Request) {
		return false
	}
	return true
}
