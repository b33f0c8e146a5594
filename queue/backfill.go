package queue

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Reservation is where and when Backfill planned a blocked job to start.
type Reservation struct {
	Job   JobID
	Start time.Time
	End   time.Time
	Nodes []string
}

type reservation struct {
	Reservation
	nodes *bitset.BitSet
}

// Backfill is conservative backfilling (the Novotný thesis §1.2.1) over a
// time-indexed profile of whole nodes, as Slurm's backfill plans: running
// jobs hold their nodes until their time limits end, and so does every
// standing reservation during its interval. In queue order each eligible
// job, ignoring its own reservation, gets the earliest start the profile
// allows; a job whose earliest start is now starts (a RunNow selection
// that avoids every node a reservation needs before the job would end),
// the others keep a reservation, which later passes only move earlier.
// So while jobs end by their limits no job starts later than its
// reservation, and no start delays one. Reservations reach as far as the
// backfill window (a day by default); times are rounded up to the
// backfill resolution (a minute). It returns the jobs started and the
// standing reservations (by start time), in new slices that are the
// caller's.
func (s *Scheduler) Backfill(now time.Time) ([]Started, []Reservation) {
	return s.BackfillContext(context.Background(), now)
}

// BackfillContext is Backfill with a context for the plugins. A job whose
// start a ReservePlugin refuses gets no reservation this pass.
func (s *Scheduler) BackfillContext(ctx context.Context, now time.Time) ([]Started, []Reservation) {
	s.lock(ctx)
	defer s.unlock()
	return s.backfill(now), s.reservations()
}

// BackfillStarts is Backfill without the list of standing reservations
// (Reservations gives it when wanted): the same pass, which a replay
// reading only the starts runs without copying every reservation.
func (s *Scheduler) BackfillStarts(now time.Time) []Started {
	s.lock(context.Background())
	defer s.unlock()
	return s.backfill(now)
}

// backfill is one pass of Backfill under the lock.
func (s *Scheduler) backfill(now time.Time) []Started {
	now, ok := s.passTime(now)
	if !ok {
		return nil
	}
	s.recalc(now)
	plan := s.kept == nil || s.queue.Len() > 0 // see below
	clamped, from := false, int64(math.MaxInt64)
	if !plan || !s.kept.resvAfter(now.UnixNano()) {
		clamped, from = s.walkResv(now, plan)
	}
	// No pending job (every job pending is queued): nothing to plan, and
	// no reservation is left. A kept profile is not brought up to date
	// either: the next pass with a job to plan compares it with the
	// cluster then, whatever happened between, and what that pass logs
	// of the changes precedes every certificate it can read (a job with
	// a reservation had none while the queue was empty). On a lightly
	// loaded cluster most passes come here. (Without a kept profile the
	// pass makes one, as a pass planning jobs would: the tests compare
	// passes on a profile rebuilt every time, and so the full path.)
	if !plan {
		return nil
	}
	pr, resvAt := s.keptProfile(now, clamped)
	if from != math.MaxInt64 || len(s.resv) == 0 {
		s.kept.resvFrom = resvFrom{at: from, ok: true} // (a walk's, or none)
	}
	// bounds: no start can use more CPUs than are free, or (unless a
	// partition oversubscribes CPUs) more nodes than have a free CPU
	skip := s.kept.skip
	pass := s.kept.newPass(uint(s.c.NodeCount()))
	freeCPUs, open := s.freeNow(skip, pass)
	b := &bfRun{s: s, now: now, nowAt: now.UnixNano(), horizon: now.Add(s.opts.bfWindow), pr: pr, resvAt: resvAt, kept: s.kept,
		freeCPUs: freeCPUs, open: open, excl: pass.excl, pass: pass, skip: skip, partsSeen: pass.partsSeen[:0]}
	considered := 0
	k := s.kept
	k.order = k.order[:0]
	s.queue.Ascend(func(j *job) bool { // ordered, into storage kept from pass to pass
		k.order = append(k.order, j)
		return true
	})
	defer clear(k.order) // hold no job past the pass
	for _, j := range k.order {
		if s.opts.backfillDepth > 0 && considered >= s.opts.backfillDepth {
			break
		}
		if s.opts.bfSelections > 0 && b.selections >= s.opts.bfSelections {
			break
		}
		if !s.eligible(j, now) {
			continue
		}
		considered++
		b.plan(j)
	}
	pass.partsSeen = b.partsSeen // its storage, for the next pass
	return b.started
}

// walkResv drops the reservations of jobs no longer pending and, when
// plan, those time has overtaken, starting the ones due at now (see
// overtaken). It reports whether one was clamped to now, and the earliest
// start of the ones left (math.MaxInt64 for none, or when not plan).
func (s *Scheduler) walkResv(now time.Time, plan bool) (clamped bool, from int64) {
	from = math.MaxInt64
	for id, r := range s.resv { // one walk of the map
		if j, ok := s.jobs[id]; !ok || j.State != Pending {
			delete(s.resv, id)
		} else if plan {
			clamped = clamped || (r.Start.Before(now) && r.End.After(now))
			if !s.overtaken(id, r, now) {
				from = min(from, max(r.Start.UnixNano(), now.UnixNano()))
			}
		}
	}
	return clamped, from
}

// resvFrom bounds from below the starts of the scheduler's reservations,
// when ok. A walk of them (walkResv) makes it exact; a pass lowers it for
// each reservation it makes; everything else only deletes reservations
// (a start, an end, a hold: each drops the job's reservation as the job
// leaves the queue or is held), which leaves a bound a bound. A profile
// built afresh starts without one.
type resvFrom struct {
	at int64
	ok bool
}

// resvAfter reports whether every reservation starts after nowAt, so
// that a pass at nowAt has none to drop or clamp (k may be nil).
func (k *keptPlan) resvAfter(nowAt int64) bool {
	return k != nil && k.resvFrom.ok && nowAt < k.resvFrom.at && !k.walkEvery
}

// bfRun is one Backfill pass's state.
type bfRun struct {
	s          *Scheduler
	now        time.Time
	nowAt      int64
	horizon    time.Time // now plus the backfill window: the last start a plan tries
	pr         *profile
	resvAt     *resvIndex
	kept       *keptPlan
	freeCPUs   int
	open, excl *bitset.BitSet
	pass       *bfPass
	selections int // counted against WithBackfillSelections
	started    []Started
	skip       *skipLog // nil when the certificates are off
	partsSeen  []string // the partitions checkPartition compared this pass
	held       []int64  // heldUntil's per-node ends, once read this pass (giveback.go)
	latest     []int64  // wordFreeFrom's per-word free times, once read this pass
	busy       bool     // the last replan found no start within the window
}

// plan starts eligible job j now or gives it the earliest reservation,
// unless its standing reservation stands without a plan (keep).
//
// Its standing reservation is given back to the profile first (the job
// must not plan around itself) but kept in the index and the books until
// something could see it there: the start attempt, or a new plan. The
// usual outcome, the same reservation again, then costs one give and one
// take.
func (b *bfRun) plan(j *job) {
	if b.keep(j) {
		j.Reason = ReasonResources
		return
	}
	old, hadOld := b.s.resv[j.ID]
	reached := b.replan(j, old, hadOld)
	if b.skip == nil {
		return
	}
	// log what changed in the profile for the certificates of others: room
	// freed (room the plan took is logged nowhere, see skipLog.holds)
	cur, has := b.s.resv[j.ID]
	same := hadOld && has && sameResv(old, cur)
	if hadOld && !same {
		b.s.freedRunIn(b.skip, b.pr, old.nodes, b.open, old.Start.UnixNano(), old.End.UnixNano())
	}
	switch {
	case has:
		b.certify(j, cur, reached)
	case b.busy:
		b.certifyBusy(j, reached)
	default:
		b.skip.forget(j.ID)
	}
}

// replan is plan in full; it reports whether the start-now attempt
// reached a start.
func (b *bfRun) replan(j *job, old reservation, hadOld bool) (reachedStart bool) {
	s, now, pr := b.s, b.now, b.pr
	b.busy = false
	end := j.expectedEnd(now)
	b.pass.most = math.MaxInt // until earliest says better
	if hadOld {
		b.giveBack(old) // giveback.go
	}
	held := hadOld // old still in the index and the books
	dropOld := func() {
		if held {
			b.resvAt.remove(j.ID)
			delete(s.resv, j.ID)
			b.kept.release(j.ID, b.nowAt)
			unionInto(b.kept.dirty, old.nodes) // see keptPlan
			held = false
		}
	}
	if mt := b.pass.maxTime(s.c, j.Partition); mt > 0 && j.TimeLimit > mt {
		dropOld() // it can start nowhere until its limit or the partition's changes
		j.Reason = ReasonPartitionTimeLimit
		return false
	}
	// start now, away from every node a reservation needs before end
	if j.Request.CPUs <= b.freeCPUs {
		// counted as a selection even when the node bound settles it,
		// so a budget stops where it always did
		b.selections++
	}
	if j.Request.CPUs <= b.freeCPUs && s.mayStartNow(j, b.open, nil) && b.mayStartAway(j, end, old, held) {
		dropOld()
		b.resvAt.before(end, b.excl)
		if p, ok := s.probeNow(j, b.open, b.excl); ok {
			b.pass.resume.ok = false // a start, refused or not, is no count's
			st, err := s.start(j, p, now)
			if err == nil {
				b.started = append(b.started, st)
				b.freeCPUs -= p.TotalCPUs
				s.fill(b.open, p)
				b.noteCPUs(p)
				nodes := p.NodeSet()
				pr.take(nodes, now, end)
				unionInto(b.kept.dirty, nodes)
				b.kept.startedUntil(nodes, end.UnixNano()) // (not logged, see skipLog.holds)
			}
			if err == nil || j.State != Pending || j.Held || j.Reason == ReasonRefused {
				return true
			}
			reachedStart = true
		}
	}
	var prev *reservation
	if hadOld {
		prev = &old
	}
	nodes, names, at, probes, err := s.earliest(pr, j, now, end, b.pass, prev)
	b.selections += probes
	if err != nil {
		dropOld()
		s.setFailure(j, err, now) // a partition limit keeps its own reason
		return reachedStart
	}
	if nodes == nil { // busy: no start within the window
		dropOld()
		j.Explanation, j.Reason = nil, ReasonResources // as setFailure would record ErrBusy
		b.busy = true
		return reachedStart
	}
	r := reservation{Reservation{Job: j.ID, Start: at, End: j.expectedEnd(at), Nodes: names}, nodes}
	j.Reason = ReasonResources
	if held && sameResv(old, r) {
		s.resv[j.ID] = r
		pr.take(r.nodes, r.Start, r.End)
		return reachedStart
	}
	dropOld()
	s.resv[j.ID] = r
	b.kept.resvFrom.at = min(b.kept.resvFrom.at, r.Start.UnixNano())
	b.kept.hold(j.ID, r, b.nowAt)
	pr.take(r.nodes, r.Start, r.End)
	b.resvAt.add(j.ID, r)
	return reachedStart
}

// mayStartAway reports whether j might start now away from the nodes
// other reservations need before end, as far as counts tell, before its
// own reservation (old, while held) leaves the index: the nodes with a
// free CPU outside every reservation's, plus those of its own, must be
// enough. A job that cannot start so keeps its reservation in the books
// untouched instead of giving it up and taking it again.
func (b *bfRun) mayStartAway(j *job, end time.Time, old reservation, held bool) bool {
	if b.open == nil {
		return true
	}
	b.resvAt.before(end, b.excl)
	n := int(b.open.DifferenceCardinality(b.excl))
	if held && old.Start.Before(end) {
		n += int(b.open.IntersectionCardinality(old.nodes))
	}
	return n >= b.s.minNodes(j)
}

// freeNow counts the free CPUs and returns the nodes with a free CPU (in
// the pass's open set, cleared first), or nil when a partition oversubscribes CPUs (a
// node without a free CPU may still take a job there). A node with more
// free CPUs than the change log last saw is logged as room freed now.
//
// When the cluster counts no change since the last pass counted (a pass
// that starts a job changes it), the count and the set are the last
// pass's, and the log saw them: they are kept as they are.
func (s *Scheduler) freeNow(skip *skipLog, pass *bfPass) (cpus int, _ *bitset.BitSet) {
	if changes := s.c.Changes(); !pass.counted.ok || pass.counted.changes != changes {
		pass.cpus = s.countFree(skip, pass)
		pass.counted = nodesRead{changes: changes, ok: true}
	}
	if s.c.OversubscribesCPUs() {
		return pass.cpus, nil
	}
	return pass.cpus, pass.open
}

// countFree is freeNow's count, made afresh into pass.open.
func (s *Scheduler) countFree(skip *skipLog, pass *bfPass) (cpus int) {
	open := pass.open
	open.ClearAll()
	var last []int
	if skip != nil {
		skip.cpus = grownKeep(skip.cpus, s.c.NodeCount())
		last = skip.cpus
	}
	pass.free = s.c.FreeCPUsInto(pass.free)
	ow := open.Words() // (open holds every node: set a word's bit without a call)
	if last == nil {
		for i, f := range pass.free {
			if f > 0 {
				cpus += f
				ow[i>>6] |= 1 << (uint(i) & 63)
			}
		}
		return cpus
	}
	rose := pass.rose[:0] // (storage kept from pass to pass)
	for i, f := range pass.free[:len(last)] {
		if f > 0 {
			cpus += f
			ow[i>>6] |= 1 << (uint(i) & 63)
		}
		if f > last[i] {
			rose = append(rose, i)
		}
		last[i] = f
	}
	pass.rose = rose
	if len(rose) > 0 {
		s.cpusFreed(skip, rose)
	}
	return cpus
}

// mayStartNow reports whether j could start now away from excl (nil for
// none) as far as counts tell: enough nodes with a free CPU outside excl.
func (s *Scheduler) mayStartNow(j *job, open, excl *bitset.BitSet) bool {
	switch {
	case open == nil:
		return true
	case excl == nil:
		return int(open.Count()) >= s.minNodes(j)
	}
	return int(open.DifferenceCardinality(excl)) >= s.minNodes(j)
}

// probeNow selects nodes for j to start on now away from excl, unless the
// nodes with a free CPU outside excl are too few to bother.
func (s *Scheduler) probeNow(j *job, open, excl *bitset.BitSet) (*selectnodes.Placement, bool) {
	if !s.mayStartNow(j, open, excl) {
		return nil, false
	}
	req := j.Request
	req.ExcludeNodes = excl
	return s.c.Probe(&req, selectnodes.RunNow)
}

// minNodes is the fewest nodes j can run on: its minimum, and what its
// CPU total needs on the largest nodes.
func (s *Scheduler) minNodes(j *job) int {
	need := max(j.Request.MinNodes, 1)
	if cpn := s.maxNodeCPUs(); cpn > 0 && j.Request.CPUs > 0 {
		need = max(need, (j.Request.CPUs+cpn-1)/cpn)
	}
	return need
}

// fill removes from open the nodes of p left without a free CPU.
func (s *Scheduler) fill(open *bitset.BitSet, p *selectnodes.Placement) {
	if open == nil {
		return
	}
	for _, a := range p.Alloc {
		if s.c.FreeCPUs(a.Node) <= 0 {
			open.Clear(uint(a.Node))
		}
	}
}

// buildProfile makes the profile of the running jobs and the standing
// reservations, and the per-node index of reservations, from scratch
// (storage from buf).
func (s *Scheduler) buildProfile(now time.Time, buf *bfBuffers) (*profile, *resvIndex) {
	c := s.c
	n := c.NodeCount()
	buf.freeAt = grown(buf.freeAt, n)
	freeAt := buf.freeAt
	for _, id := range c.Running() {
		p, _, end, _ := c.Allocation(id)
		for _, a := range p.Alloc {
			if end.After(freeAt[a.Node]) {
				freeAt[a.Node] = end
			}
		}
	}
	never := c.Up()
	never.InPlaceIntersection(c.Avail())
	never = never.Complement()
	ids := s.standingResv(now)
	bounds := make([]time.Time, 0, 2*len(ids))
	for _, id := range ids {
		r := s.resv[id]
		bounds = append(bounds, r.End, r.Start) // the order take splits in
	}
	pr := newProfile(now, freeAt, never, s.opts.bfResolution, bounds, buf)
	idx := newResvIndex(n, len(s.resv))
	for _, id := range ids {
		r := s.resv[id]
		pr.take(r.nodes, r.Start, r.End)
		idx.add(id, r)
	}
	return pr, idx
}

// standingResv drops the reservations time has overtaken, starts the ones
// due but not started at now (they still hold their nodes from now), and
// returns the rest's jobs in order.
func (s *Scheduler) standingResv(now time.Time) []JobID {
	ids := sortedResv(s.resv)
	out := ids[:0]
	for _, id := range ids {
		r := s.resv[id]
		if !s.overtaken(id, r, now) {
			out = append(out, id)
		}
	}
	return out
}

// overtaken drops reservation r of job id if time has overtaken it, and
// starts it at now if due but not started (it still holds its nodes from
// now); it reports whether r was dropped. The order jobs are visited in
// does not matter.
func (s *Scheduler) overtaken(id JobID, r reservation, now time.Time) bool {
	if !r.End.After(now) {
		delete(s.resv, id)
		return true
	}
	if r.Start.Before(now) {
		r.Start = now
		s.resv[id] = r
	}
	return false
}

func sortedResv(m map[JobID]reservation) []JobID { return slices.Sorted(maps.Keys(m)) }

// bfPass is one Backfill pass's scratch: the window and its complement,
// the nodes with a free CPU and those reserved before some end, the
// partitions' node sets (which a pass does not change), and what the
// last earliest search saw of the starts it ruled out. Its storage is
// kept with the profile from pass to pass (see newPass).
type bfPass struct {
	w, notW    *bitset.BitSet
	open, excl *bitset.BitSet
	parts      map[string]partSet
	last       partSet // the partition fetched last, and its name
	lastName   string
	// mt is the MaxTime of partition mtName in pass mtGen (see maxTime)
	mt        time.Duration
	mtName    string
	mtGen     uint64
	gen       uint64   // counts the passes, for parts
	partsSeen []string // bfRun.partsSeen's storage
	free      []int    // freeNow's storage
	rose      []int    // countFree's storage
	// counted is when open and cpus (the free CPUs) were counted
	counted nodesRead
	cpus    int
	// most bounds, for every start the last earliest ruled out, the nodes
	// of the job's partition free throughout its window; math.MaxInt when
	// a start failed for more than its count (a selection failed).
	most int
	// untried is, after an earliest that found no start, the first slot
	// start it left untried past the window (math.MaxInt64 for none)
	untried int64
	// resume, when ok, is where the next earliest may start its search
	// (see resumeAt): set by a recount that failed, read by the plan that
	// follows it at once
	resume resumeAt
	// into is the node set the next selection writes into, until one
	// succeeds and its reservation keeps it; req the request it selects
	into *bitset.BitSet
	req  selectnodes.Request
}

// newPass returns the pass scratch for a cluster of n nodes, reusing the
// last pass's storage: every field a pass reads is written first (the
// sets are overwritten or cleared where used, the partitions fetched
// afresh into their sets).
func (k *keptPlan) newPass(n uint) *bfPass {
	p := &k.pass
	if p.w == nil || p.w.Len() != n {
		*p = bfPass{w: bitset.New(n), notW: bitset.New(n), open: bitset.New(n), excl: bitset.New(n),
			parts: map[string]partSet{}}
	}
	p.gen++ // every partition set is stale
	p.most, p.resume = 0, resumeAt{}
	return p
}

// partSet is a partition's node set and the pass it was fetched in.
type partSet struct {
	nodes *bitset.BitSet
	gen   uint64
}

// partition returns the node set of partition name (nil when there is no
// such partition), fetched once a pass into storage kept from pass to
// pass: nothing may keep it past the pass.
func (pass *bfPass) partition(c *selectnodes.Cluster, name string) *bitset.BitSet {
	if pass.last.gen == pass.gen && pass.lastName == name { // most jobs share a partition
		return pass.last.nodes
	}
	e, ok := pass.parts[name]
	if ok && e.gen == pass.gen {
		pass.last, pass.lastName = e, name
		return e.nodes
	}
	nodes, found := c.PartitionNodesInto(name, e.nodes)
	if !found {
		nodes = nil
	}
	pass.parts[name] = partSet{nodes, pass.gen}
	pass.last, pass.lastName = partSet{nodes, pass.gen}, name
	return nodes
}

// maxTime is partition name's MaxTime (0 when there is no such
// partition), read once a pass for the partition read last: a partition
// is a large value to copy for every plan, and no pass changes one.
func (pass *bfPass) maxTime(c *selectnodes.Cluster, name string) time.Duration {
	if pass.mtGen != pass.gen || pass.mtName != name {
		p, _ := c.PartitionLimits(name)
		pass.mt, pass.mtName, pass.mtGen = p.MaxTime, name, pass.gen
	}
	return pass.mt
}

// earliest finds the first slot from which j's nodes stay free for its
// whole time limit, selecting (TestOnly, so only the free nodes count)
// among the nodes free throughout.
//
// A previous reservation whose nodes are still free for its interval is
// kept without a new selection unless a start at least one backfill
// resolution earlier exists.
//
// probes is how many selections it made. No nodes and no error is a job
// that fits the idle cluster but starts nowhere within the window (busy:
// the caller records it without building an error).
func (s *Scheduler) earliest(pr *profile, j *job, now, end time.Time, pass *bfPass, prev *reservation) (nodes *bitset.BitSet, names []string, at time.Time, probes int, err error) {
	d := end.Sub(now) // end is j.expectedEnd(now)
	horizon := now.Add(s.opts.bfWindow)
	part := pass.partition(s.c, j.Partition)
	need := s.minNodes(j)
	w, notW := pass.w, pass.notW
	pass.most = 0
	// A previous reservation that still holds is kept unless a start at
	// least one resolution step earlier exists: re-planning for seconds
	// is churn (Slurm's bf_resolution).
	keepFrom, keepAfter := -1, int64(math.MaxInt64)
	if prev != nil {
		if k, found := pr.find(prev.Start); found {
			if pr.freeThroughout(prev.nodes, k, d) {
				keepFrom = k
				keepAfter = prev.Start.Add(-max(s.opts.bfResolution, time.Nanosecond)).UnixNano()
			}
		}
	}
	shorts := pr.shortScan(d, need)
	first := 0
	if pass.resume.ok {
		if k, found := slices.BinarySearch(pr.at, pass.resume.at); found {
			first, pass.most = k, pass.resume.most
			if s.kept != nil && s.kept.skip != nil {
				s.kept.skip.resumed++
			}
		}
		pass.resume.ok = false
	}
	i := first
	for ; i < len(pr.times); i++ {
		t := pr.times[i]
		if t.After(horizon) {
			break
		}
		if pr.at[i] > keepAfter { // (keepFrom >= 0) past the last start worth trying before prev
			return prev.nodes, prev.Nodes, prev.Start, probes, nil
		}
		// A slot in the window with too few free nodes in the whole
		// cluster rules out every start whose window holds it: skip past.
		// (Every start from i to k has slot k in its window, so count[k]
		// bounds their windows.)
		if k := shorts.at(i); k >= 0 {
			pass.most = max(pass.most, pr.count[k])
			i = k
			continue
		}
		pr.window(i, d, w)
		if c := int(w.IntersectionCardinality(part)); c < need {
			pass.most = max(pass.most, c)
			continue
		}
		req := &pass.req // in the scratch: a request on the stack escapes
		*req = j.Request
		w.Copy(notW)
		notW.FlipRange(0, notW.Len())
		req.ExcludeNodes = notW
		probes++
		// the chosen nodes only: the names are made when a reservation
		// is read (resvNames), and most never are
		if pass.into == nil {
			pass.into = bitset.New(uint(s.c.NodeCount()))
		}
		if s.c.ProbeInto(req, selectnodes.TestOnly, pass.into) {
			nodes, pass.into = pass.into, nil
			return nodes, nil, t, probes, nil
		}
		pass.most = math.MaxInt
	}
	if keepFrom >= 0 {
		return prev.nodes, prev.Nodes, prev.Start, probes, nil
	}
	// every start before the first slot left untried was tried or ruled
	// out (see certifyBusy)
	pass.untried = int64(math.MaxInt64)
	if i < len(pr.at) {
		pass.untried = pr.at[i]
	}
	// why not: never (a configuration error), or not within the window;
	// a shape admitted since the configuration last changed fits the idle
	// cluster without asking again (counted as the selection it replaces)
	probes++
	if s.admittedBefore(&j.Request) {
		return nil, nil, time.Time{}, probes, nil
	}
	if pass.into == nil {
		pass.into = bitset.New(uint(s.c.NodeCount()))
	}
	if s.c.ProbeInto(&j.Request, selectnodes.TestOnly, pass.into) {
		// it fits an idle cluster: busy (and the admission memo, which may
		// have dropped the shape since its submit, has it again)
		s.noteAdmitted(&j.Request)
		return nil, nil, time.Time{}, probes, nil
	}
	if _, err := s.c.Try(&j.Request, selectnodes.TestOnly); err != nil {
		return nil, nil, time.Time{}, probes, err
	}
	return nil, nil, time.Time{}, probes, nil
}

// reservations lists the standing reservations by start, then job.
func (s *Scheduler) reservations() []Reservation {
	// sort small keys, not the records
	type key struct {
		start time.Time
		job   JobID
	}
	keys := make([]key, 0, len(s.resv))
	for id, r := range s.resv {
		keys = append(keys, key{r.Start, id})
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.job, b.job)
	})
	out := make([]Reservation, len(keys))
	for i, k := range keys {
		r := s.resv[k.job]
		out[i] = r.Reservation
		out[i].Nodes = slices.Clone(s.resvNames(r))
	}
	return out
}

// resvNames is the names of r's nodes: a plan records only the node set.
func (s *Scheduler) resvNames(r reservation) []string {
	if r.Nodes != nil {
		return r.Nodes
	}
	return s.c.Names(r.nodes)
}

// Reservations returns the standing reservations of the last Backfill.
func (s *Scheduler) Reservations() []Reservation {
	s.enterRead()
	defer s.mu.Unlock()
	return s.reservations()
}

// resvIndex answers "which nodes does some reservation hold before t".
// With few reservations or few nodes it ORs the node sets of the
// reservations that start before t; past a size where that costs more
// than a pass over the nodes, it keeps, per node, the reservations holding
// it and the earliest of their starts (Unix nanoseconds).
type resvIndex struct {
	n    int
	resv map[JobID]reservation
	// the same reservations as a list (start, nodes), for the OR of
	// before without walking a map; pos is each job's place in it
	list []resvStart
	pos  map[JobID]int
	// per node, built on first need
	byNode   [][]JobID
	minStart []int64
}

// resvStart is a reservation as before and recolumn read it.
type resvStart struct {
	id         JobID
	start, end int64
	nodes      *bitset.BitSet
}

func newResvIndex(n, size int) *resvIndex {
	return &resvIndex{n: n, resv: make(map[JobID]reservation, size), pos: make(map[JobID]int, size)}
}

// perNode reports whether the per-node index pays: more reservation words
// to OR than one pass over the nodes costs.
func (x *resvIndex) perNode() bool { return len(x.resv)*((x.n+63)/64) > 4*x.n }

func (x *resvIndex) build() {
	x.byNode, x.minStart = make([][]JobID, x.n), make([]int64, x.n)
	for i := range x.minStart {
		x.minStart[i] = math.MaxInt64
	}
	for _, id := range sortedResv(x.resv) {
		x.index(id, x.resv[id])
	}
}

func (x *resvIndex) index(id JobID, r reservation) {
	start := r.Start.UnixNano()
	for i, ok := r.nodes.NextSet(0); ok; i, ok = r.nodes.NextSet(i + 1) {
		x.byNode[i] = append(x.byNode[i], id)
		x.minStart[i] = min(x.minStart[i], start)
	}
}

func (x *resvIndex) add(id JobID, r reservation) {
	if i, ok := x.pos[id]; ok { // replaced
		x.list[i] = resvStart{id, r.Start.UnixNano(), r.End.UnixNano(), r.nodes}
	} else {
		x.pos[id] = len(x.list)
		x.list = append(x.list, resvStart{id, r.Start.UnixNano(), r.End.UnixNano(), r.nodes})
	}
	x.resv[id] = r
	if x.byNode != nil {
		x.index(id, r)
	}
}

func (x *resvIndex) remove(id JobID) {
	r, ok := x.resv[id]
	if !ok {
		return
	}
	delete(x.resv, id)
	i, last := x.pos[id], len(x.list)-1
	x.list[i] = x.list[last]
	x.pos[x.list[i].id] = i
	x.list[last] = resvStart{}
	x.list = x.list[:last]
	delete(x.pos, id)
	if x.byNode == nil {
		return
	}
	start := r.Start.UnixNano()
	for i, ok := r.nodes.NextSet(0); ok; i, ok = r.nodes.NextSet(i + 1) {
		if x.minStart[i] != start {
			continue // the node's earliest reservation is another one
		}
		// recompute, dropping entries of removed reservations on the way
		m := int64(math.MaxInt64)
		keep := x.byNode[i][:0]
		for _, o := range x.byNode[i] {
			if or, live := x.resv[o]; live && or.nodes.Test(i) {
				keep = append(keep, o)
				m = min(m, or.Start.UnixNano())
			}
		}
		x.byNode[i] = keep
		x.minStart[i] = m
	}
}

// before writes into dst the nodes some reservation holds before t.
func (x *resvIndex) before(t time.Time, dst *bitset.BitSet) {
	dst.ClearAll()
	if x.byNode == nil && !x.perNode() {
		limit := t.UnixNano()
		for i := range x.list {
			if e := &x.list[i]; e.start < limit {
				unionInto(dst, e.nodes)
			}
		}
		return
	}
	if x.byNode == nil {
		x.build()
	}
	limit := t.UnixNano()
	w := dst.Words()
	for k := range w {
		var word uint64
		base := k * 64
		for b := 0; b < 64 && base+b < len(x.minStart); b++ {
			if x.minStart[base+b] < limit {
				word |= 1 << uint(b)
			}
		}
		w[k] = word
	}
}

// maxNodeCPUs is at least the most CPUs any node offers a selection now
// (what nodes reported counts under FastSchedule 0).
func (s *Scheduler) maxNodeCPUs() int { return s.c.MostNodeCPUs() }
