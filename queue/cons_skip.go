package queue

import (
	"math"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Incremental conservative backfill (Mu'alem and Feitelson's
// observation, made exact for this planner): a job's reservation can only
// move when the profile it was planned on gained room before the end of
// the windows its plan looked at, or lost room under the reservation
// itself. Everything else that happens between two passes — jobs
// submitted behind it, jobs started elsewhere, reservations taken on
// other nodes or later, time passing — leaves its plan as a full plan
// would leave it: the same reservation, kept.
//
// So each change to the profile is written to a log as it is made:
//
//   - "freed": room that appeared, from some instant on (a job ending
//     early, a node coming back, a reservation given back or moved, a
//     partition changed);
//   - "taken": room that went, on some nodes over some interval (a job
//     started, a reservation taken, a node going down).
//
// A job planned in full leaves a certificate: its reservation, what its
// plan read of the job (time limit, partition, request), and the log's
// position. At the next pass, if nothing freed since then starts before
// the last instant any window its plan tried reaches, and nothing taken
// since then touches its reservation, a full plan would try the same
// starts on a profile with no more room in them (a start it found
// impossible stays impossible: feasibility of a plain request is monotone
// in the free nodes), find its reservation still free, and keep it; the
// start-now attempt likewise fails again, as long as now has not passed
// the last start the plan tried (one resolution step before the
// reservation's). The job then keeps its reservation without a plan, and
// its certificate moves up to the present. Room freed on nodes too few to
// make up what the starts tried lacked does not void it either (see
// cons_gain.go).
//
// The shortcut is taken only where the monotonicity holds and can be
// stated: plain requests (no features, node lists, GRES or groups) on a
// cluster without a topology, no selection budget (a budget counts the
// selections a full plan makes), and a start-now attempt that never
// reached a start (a ReservePlugin may answer differently next time).

// maxSkipLog bounds the change log; past it the log starts over and every
// certificate written before is void.
const maxSkipLog = 4096

// skipEntry is one change to the profile: room freed from `from` on, on
// nodes (nil for any) none of which has a free run longer than run, or
// nodes taken over [from, to) other than by a pass for a job it planned
// (see holds).
type skipEntry struct {
	seq      uint64
	freed    bool
	own      bool // nodes is the log's own set (see logSet), reused once the entry goes
	from, to int64
	run      time.Duration
	nodes    *bitset.BitSet
}

// skipCert is what a full plan of a job read and decided.
type skipCert struct {
	seq       uint64
	resv      reservation
	d         time.Duration
	timeLimit time.Duration
	key       admitKey
	// updates is the scheduler's count of applied Updates when the job's
	// request was last compared with key (see keyStands)
	updates  uint64
	mostCPUs int
	// most bounds the nodes the job could have had at every start its
	// plan ruled out, the start-now attempt's included (see gained);
	// math.MaxInt when unknown.
	most int
	// lastTried is the last start the plan tried, one resolution step
	// before resv's; lastAt the same in Unix nanoseconds
	lastTried time.Time
	lastAt    int64
	// busy: the plan found no start within the window and left the job
	// without a reservation (resv is zero; see cons_busy.go)
	busy bool
}

// skipLog is the change log and the certificates. It belongs to a kept
// profile: a profile built afresh starts a new one, so every certificate
// of the old one is void.
type skipLog struct {
	seq     uint64
	floor   uint64 // certificates from before floor are void
	entries []skipEntry
	certs   certTable
	parts   map[string]*partSig // the partitions as the last pass saw them
	cpus    []int               // each node's free CPUs as the last pass left them
	gained  *bitset.BitSet      // holds' scratch
	spare   []*bitset.BitSet    // sets of entries gone, for logSet
	empty   []int               // cpusFreed's storage
	// kept counts the reservations kept without a plan, narrowed those
	// of them kept with room gained (see cons_gain.go), recounted those
	// kept after counting again (see cons_recount.go), resumed the full
	// plans that started their search where a recount stopped; tests
	// read them.
	kept, narrowed, recounted, resumed int
	// keptBusy counts the jobs kept without a reservation (cons_busy.go);
	// keyed the requests compared field by field with a certificate's key
	// (keyStands)
	keptBusy, keyed int
}

func newSkipLog() *skipLog {
	return &skipLog{parts: map[string]*partSig{}}
}

func (l *skipLog) add(e skipEntry) {
	l.seq++
	e.seq = l.seq
	if len(l.entries) >= maxSkipLog {
		l.drop(l.entries)
		l.entries = l.entries[:0]
		l.floor = l.seq
	}
	l.entries = append(l.entries, e)
}

// freed logs room appearing from at on.
func (l *skipLog) freed(at int64) { l.add(skipEntry{freed: true, from: at, run: math.MaxInt64}) }

// taken logs nodes going over [from, to); nodes is kept and must not change.
func (l *skipLog) taken(nodes *bitset.BitSet, from, to int64) {
	if nodes == nil || nodes.None() || to <= from {
		return
	}
	l.add(skipEntry{from: from, to: to, nodes: nodes})
}

// prune drops, once the log has grown past pruneAt entries, the
// certificates of jobs that hold no reservation any more (started or
// ended outside a pass) or that are older than the log's middle entry (a
// job past the backfill depth is not checked, so its certificate would
// keep the log long: it gets a full plan when next reached), then the
// entries every remaining certificate is newer than and taken entries
// that end by now.
func (l *skipLog) prune(nowAt int64, resv map[JobID]reservation) {
	if len(l.entries) < pruneAt {
		return
	}
	oldest, mid := l.seq, l.entries[len(l.entries)/2].seq
	l.certs.each(func(id JobID, c *skipCert) {
		if _, ok := resv[id]; (!ok && !c.busy) || c.seq < max(l.floor, mid) {
			l.certs.del(id)
			return
		}
		oldest = min(oldest, c.seq)
	})
	keep := l.entries[:0]
	for _, e := range l.entries {
		if e.seq > oldest && (e.freed || e.to > nowAt) {
			keep = append(keep, e)
		} else if e.own {
			l.spareSet(e.nodes)
		}
	}
	clear(l.entries[len(keep):])
	l.entries = keep
}

// logSet returns the set of nodes (of n) for an entry of the log's own,
// in the storage of one an entry gone held; the caller logs it with
// owned.
func (l *skipLog) logSet(n int, nodes []int) *bitset.BitSet {
	var b *bitset.BitSet
	if k := len(l.spare); k > 0 && l.spare[k-1].Len() == uint(n) {
		b, l.spare = l.spare[k-1], l.spare[:k-1]
		b.ClearAll()
	} else {
		b = bitset.New(uint(n))
	}
	for _, i := range nodes {
		b.Set(uint(i))
	}
	return b
}

// owned marks the entry logged last as holding set b of logSet's, which
// nothing else holds; when none was logged with it, b is spare at once.
func (l *skipLog) owned(b *bitset.BitSet) {
	if k := len(l.entries) - 1; k >= 0 && l.entries[k].nodes == b {
		l.entries[k].own = true
		return
	}
	l.spareSet(b)
}

// drop keeps the sets of the entries es that were the log's own.
func (l *skipLog) drop(es []skipEntry) {
	for _, e := range es {
		if e.own {
			l.spareSet(e.nodes)
		}
	}
}

func (l *skipLog) spareSet(b *bitset.BitSet) {
	if len(l.spare) < maxSpareSets {
		l.spare = append(l.spare, b)
	}
}

// maxSpareSets bounds the sets the log keeps for reuse.
const maxSpareSets = 64

// pruneAt is the log's length that sets prune to work.
const pruneAt = 256

// forget drops job id's certificate.
func (l *skipLog) forget(id JobID) { l.certs.del(id) }

// holds reports whether the certificate c may still be good: nothing
// taken since it overlaps its reservation, and no room freed since that
// starts before horizon with a free run as long as c's job (for a node
// of the job's own reservation, the run as the job sees it on pr, its
// reservation given back) unless c.most says by how much every start c's
// plan ruled out fell short of need nodes and the log names the nodes
// freed. gained is then the nodes of that room (nil for none; the log's
// storage, until the next call), which the caller still has to weigh
// (see cons_gain.go).
//
// Room a pass takes for a job it plans is not logged: a reservation
// chosen on the profile, or a start now away from every node a
// reservation holds before the start's end, overlaps no standing
// reservation, and so no certificate's (a certificate names its job's
// reservation as it stands: one changed since is planned again, which
// rewrites the certificate, or changed between passes, which drops it).
func (l *skipLog) holds(pr *profile, c *skipCert, horizon int64, need int) (ok bool, gained *bitset.BitSet) {
	if c.seq < l.floor {
		return false, nil
	}
	r := &c.resv
	start, end := r.Start.UnixNano(), r.End.UnixNano()
	known := c.most < need // how far short the ruled-out starts fell
	// the entries after c.seq, from the last (entries are in seq order):
	// a check passes over every one of them anyway, so finding the first
	// by a search would only add to its walk (the order they are read in
	// changes nothing but which failure is found first)
	for k := len(l.entries) - 1; k >= 0 && l.entries[k].seq > c.seq; k-- {
		e := &l.entries[k]
		if e.freed {
			if e.from >= horizon {
				continue
			}
			if !known || e.nodes == nil {
				if e.run >= c.d || (r.nodes != nil && ownRun(pr, e, r) >= c.d) {
					return false, nil
				}
				continue
			}
			// the nodes that may have gained room, more than enough: the
			// caller weighs each on pr (a node of r's own whose run here
			// was measured with r in place may have a longer one)
			if gained == nil {
				l.gained = clearedSet(l.gained, e.nodes.Len())
				gained = l.gained
			}
			if e.run >= c.d {
				unionInto(gained, e.nodes)
			} else {
				unionCommon(gained, e.nodes, r.nodes)
			}
			continue
		}
		if r.nodes != nil && e.from < end && start < e.to && e.nodes.IntersectionCardinality(r.nodes) > 0 {
			return false, nil
		}
	}
	return true, gained
}

// unionInto adds b to dst: word by word when the two are as long (the
// usual case: every set of the log has the cluster's length).
func unionInto(dst, b *bitset.BitSet) {
	if d, w := dst.Words(), b.Words(); len(d) == len(w) && dst.Len() == b.Len() {
		orInto(d, w)
		return
	}
	dst.InPlaceUnion(b)
}

// unionCommon adds to dst the nodes both a and b hold (dst as long as
// either).
func unionCommon(dst, a, b *bitset.BitSet) {
	d, x, y := dst.Words(), a.Words(), b.Words()
	for k := range min(len(d), len(x), len(y)) {
		d[k] |= x[k] & y[k]
	}
}

// clearedSet returns b cleared with length n, or a new set.
func clearedSet(b *bitset.BitSet, n uint) *bitset.BitSet {
	if b == nil || b.Len() != n {
		return bitset.New(n)
	}
	b.ClearAll()
	return b
}

// partSig is what a plan reads of a partition, and the cluster's change
// count and the scheduler's partition updates when it was last compared
// with the partition.
type partSig struct {
	p       selectnodes.Partition
	nodes   *bitset.BitSet
	changes uint64
	partGen uint64
}

// samePartition reports whether a is partition y with nodes.
func samePartition(a *partSig, y *selectnodes.Partition, nodes *bitset.BitSet) bool {
	x := &a.p
	return x.Name == y.Name && x.MinNodes == y.MinNodes && x.MaxNodes == y.MaxNodes && x.MaxTime == y.MaxTime &&
		x.DefaultTime == y.DefaultTime && x.Priority == y.Priority && x.State == y.State && x.RootOnly == y.RootOnly &&
		x.Sharing == y.Sharing && x.Hidden == y.Hidden && x.MaxMemPerNode == y.MaxMemPerNode &&
		x.DefMemPerCPU == y.DefMemPerCPU && x.DefMemPerNode == y.DefMemPerNode && x.MaxCPUsPerNode == y.MaxCPUsPerNode &&
		sameAccess(x.Access, y.Access) && a.nodes.Equal(nodes)
}

// skipping reports whether this pass may keep reservations without a
// plan at all.
func (b *bfRun) skipping() bool {
	return b.skip != nil && b.s.opts.bfSelections == 0 && b.s.c.Topology() == nil
}

// checkPartition logs a change to the partition of name since the last
// pass as room freed everywhere (a partition that grew or came up), once
// a pass.
func (b *bfRun) checkPartition(name string) {
	if slices.Contains(b.partsSeen, name) {
		return
	}
	b.partsSeen = append(b.partsSeen, name)
	changes := b.s.c.Changes()
	old := b.skip.parts[name] // (by pointer: a partition is a large value)
	if old != nil && (old.changes == changes || old.partGen == b.s.partGen) {
		// no call since the comparison changed a partition or a node, or
		// none changed a partition (only UpdatePartition does)
		old.changes = changes
		return
	}
	nodes := b.pass.partition(b.s.c, name)
	p, _ := b.s.c.Partition(name) // copied once a partition update
	p.Nodes = nil                 // nodes stands for it
	if old == nil || !samePartition(old, &p, nodes) {
		b.skip.freed(math.MinInt64)
		old = &partSig{p: p, nodes: nodes.Clone()}
		b.skip.parts[name] = old
	}
	old.changes, old.partGen = changes, b.s.partGen
}

// keep reports whether j's standing reservation stands without a plan
// (see the comment at the top of this file); if so it moves j's
// certificate up to the present.
func (b *bfRun) keep(j *job) bool {
	b.pass.resume.ok = false // only a recount of j's, below, sets it for j's plan
	if !b.skipping() {
		return false
	}
	c := b.skip.certs.get(j.ID)
	if c == nil {
		return false
	}
	// c.resv is the job's standing reservation: a pass changes a job's
	// reservation only when it plans the job, which rewrites or drops the
	// certificate, and one changed or dropped between passes drops it when
	// the pass brings the profile up to date (syncResv). Its start is
	// after now while now is not past the last start tried (below).
	if j.TimeLimit != c.timeLimit {
		return false
	}
	if !b.keyStands(j, c) || c.mostCPUs != b.s.maxNodeCPUs() {
		return false
	}
	limit := j.TimeLimit
	if limit <= 0 {
		limit = unlimited
	}
	d := time.Duration(laterAt(b.nowAt, limit) - b.nowAt) // j.expectedEnd(b.now).Sub(b.now), in integers
	if d != c.d {
		return false
	}
	b.checkPartition(j.Partition)
	// A plan tries no start later than one resolution step before its
	// reservation's, so once now is past that, the start-now attempt is a
	// start no plan tried (a reservation time has overtaken since may have
	// kept it off nodes that are free now): plan in full.
	lastTried := c.lastTried
	if b.nowAt > c.lastAt || (c.busy && !b.busyStill(j, c)) {
		return false
	}
	if !b.logStands(j, c, d, lastTried) {
		return false
	}
	if c.busy {
		j.Explanation = nil // as the busy plan records it
		b.skip.keptBusy++
	}
	c.seq = b.skip.seq
	b.skip.kept++
	return true
}

// logStands reports whether what the log holds since c was written leaves
// c's job where its plan put it (holds, then weigh). A certificate as new
// as the log has nothing to read there: holds would pass it at once, so
// it is not called, nor the job's need counted for it.
func (b *bfRun) logStands(j *job, c *skipCert, d time.Duration, lastTried time.Time) bool {
	if c.seq == b.skip.seq { // (the log's floor is never above its last seq)
		return true
	}
	need := b.s.minNodes(j)
	ok, gained := b.skip.holds(b.pr, c, laterAt(c.lastAt, d), need)
	if !ok {
		return false
	}
	return gained == nil || !gained.Any() || b.weigh(c, gained, j.Partition, d, need, lastTried)
}

// weigh reports whether the room gained on the nodes gained since c was
// written leaves c's job where its plan put it, and updates c's bound if
// so. Gained nodes of the job's partition few enough to fall short of
// its need at every start settle it by their count. Past that, on
// clusters where the starts can be counted again (see cons_recount.go),
// they are: that count is exact, where weighing each node's runs only
// bounds it, so it is made at once rather than after a weighing that
// would only often fail. Elsewhere only the nodes a plan could use are
// weighed (see usable).
func (b *bfRun) weigh(c *skipCert, gained *bitset.BitSet, partition string, d time.Duration, need int, lastTried time.Time) bool {
	part := b.pass.partition(b.s.c, partition)
	limit := need - 1 - c.most
	if part != nil {
		gained.InPlaceIntersection(part) // the log's scratch: ours to change
	}
	if g := int(gained.Count()); g <= limit {
		c.most += g
		b.skip.narrowed++
		return true
	}
	if b.recountable(&c.resv, part, d, lastTried) {
		most, ok := b.recount(&c.resv, part, d, need, lastTried)
		if ok {
			c.most = most
			b.skip.recounted++
		}
		return ok
	}
	if g := b.usable(gained, nil, &c.resv, d, lastTried.UnixNano(), limit); g <= limit { // (part applied)
		c.most += g
		b.skip.narrowed++
		return true
	}
	return false
}

// certify writes j's certificate after a full plan that left it
// reservation r, when the plan qualifies: a plain request, a start-now
// attempt that reached no start, and every start before r's (less one
// resolution step) tried within the backfill window.
func (b *bfRun) certify(j *job, r reservation, reachedStart bool) {
	old, k, ok := b.takeCert(j, reachedStart)
	if !ok {
		return
	}
	lastTried := r.Start.Add(-max(b.s.opts.bfResolution, time.Nanosecond))
	if lastTried.After(b.horizon) {
		return // starts past the window were never tried
	}
	b.checkPartition(j.Partition)
	if old == nil { // a job's certificate is rewritten in place: no allocation per plan
		old = new(skipCert)
	}
	*old = skipCert{seq: b.skip.seq, resv: r, d: j.expectedEnd(b.now).Sub(b.now), timeLimit: j.TimeLimit,
		key: k, updates: b.s.updates, mostCPUs: b.s.maxNodeCPUs(), most: b.most(j), lastTried: lastTried, lastAt: lastTried.UnixNano()}
	b.skip.certs.set(j.ID, old)
}

// takeCert removes j's certificate before a full plan writes its new one,
// returning the old one's storage (nil for none) to write it in and j's
// plain key; ok is false when no certificate may follow: the pass keeps
// none, the request is not plain, or the start-now attempt reached a
// start.
func (b *bfRun) takeCert(j *job, reachedStart bool) (old *skipCert, k admitKey, ok bool) {
	if !b.skipping() {
		return nil, admitKey{}, false
	}
	old = b.skip.certs.get(j.ID)
	b.skip.certs.del(j.ID)
	k, plain := plainKey(&j.Request)
	return old, k, plain && !reachedStart
}

// keyStands reports whether j's request is still c's plain key. A pending
// job's request changes only as an Update is applied, which the scheduler
// counts: while that count stands where it was when the request was last
// compared with the key, the request is the one compared, and the field
// by field comparison (a check every kept reservation made) is not made
// again.
func (b *bfRun) keyStands(j *job, c *skipCert) bool {
	if c.updates == b.s.updates {
		return true
	}
	b.skip.keyed++
	if !samePlainKey(&j.Request, &c.key) {
		return false
	}
	c.updates = b.s.updates
	return true
}

// samePlainKey is plainKey(req) == (*k, true), read field by field
// without building the key (a check every kept reservation makes); a
// test holds the two equal for every field of a request.
func samePlainKey(req *selectnodes.Request, k *admitKey) bool {
	if req.Features != nil || len(req.Required) > 0 || len(req.Excluded) > 0 ||
		req.ExcludeNodes != nil || len(req.GRES) > 0 || len(req.Groups) > 0 {
		return false
	}
	return req.CPUs == k.cpus && req.MinNodes == k.minNodes && req.MaxNodes == k.maxNodes &&
		req.DesiredNodes == k.desiredNodes && int64(req.TimeLimit) == k.timeLimit &&
		req.MinCPUsPerNode == k.minCPUsPerNode && req.MaxCPUsPerSocket == k.maxPerSock &&
		req.MinMemoryPerNode == k.minMemory && req.MinTmpDiskPerNode == k.minTmpDisk && req.MemPerCPU == k.memPerCPU &&
		req.WholeMemory == k.wholeMemory && req.CoreTasks == k.coreTasks && req.Root == k.root &&
		req.Contiguous == k.contiguous && req.Held == k.held && req.MaxSwitches == k.maxSwitches && req.Share == k.share &&
		req.Partition == k.partition && req.User == k.user && req.Account == k.account && req.QOS == k.qos
}

func sameAccess(a, b selectnodes.Access) bool {
	return slices.Equal(a.AllowGroups, b.AllowGroups) && slices.Equal(a.AllowAccounts, b.AllowAccounts) &&
		slices.Equal(a.DenyAccounts, b.DenyAccounts) && slices.Equal(a.AllowQOS, b.AllowQOS) && slices.Equal(a.DenyQOS, b.DenyQOS)
}

// noteCPUs records the free CPUs p's start left on its nodes, so the next
// pass's freeNow compares with what this pass left.
func (b *bfRun) noteCPUs(p *selectnodes.Placement) {
	if b.skip == nil {
		return
	}
	for _, a := range p.Alloc {
		b.skip.cpus[a.Node] = b.s.c.FreeCPUs(a.Node)
	}
}

// grownKeep returns buf with n elements, keeping the first ones; new ones
// are math.MaxInt, so a node first seen never counts as freed.
func grownKeep(buf []int, n int) []int {
	for len(buf) < n {
		buf = append(buf, math.MaxInt)
	}
	return buf[:n]
}
