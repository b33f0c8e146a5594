package selectnodes

// Whether a quick probe asks noRoom first. noRoom answers most probes of a
// crowded cluster of many-core nodes (MetaCentrum's trace: nine in ten),
// where it halves a replay's work; elsewhere it answers few or none, and
// each probe it does not answer pays its walk on top of the pipeline's
// (1-2 % of a replay on traces of other sites run on the same kinds of
// node). So the check runs on every probe while at least one in
// roomHitsIn of the checks of a round of roomRound answer; after a round
// with fewer, it runs on one probe in roomSample only, and a sampled round
// that answers often enough turns it back on. Whether it runs never
// changes an answer: a probe it does not answer goes through the pipeline,
// which fails exactly where noRoom would have. The gate is a function of
// the probes made before, so a replay stays deterministic. It is kept in
// the working memory a selection borrows: a call that finds it lent (a
// concurrent read of a snapshot) works with a fresh one, on, and a
// Snapshot's cluster starts with its own.
type roomGate struct {
	off         bool
	tries, hits uint32 // checks of this round, and those that answered
	passed      uint32 // probes since the last sampled one, while off
}

const (
	roomRound  = 256
	roomHitsIn = 8
	roomSample = 16
)

// roomCheck is noRoom behind gate g: false, for the pipeline to decide,
// when the gate passes the probe over.
func (c *Cluster) roomCheck(g *roomGate, job *Job, mode Mode) bool {
	if !g.open() {
		return false
	}
	full := c.noRoom(job, mode)
	g.count(full)
	return full
}

// open reports whether this probe is checked: every one while the gate is
// on, one in roomSample while it is off.
func (g *roomGate) open() bool {
	if !g.off {
		return true
	}
	if g.passed++; g.passed < roomSample {
		return false
	}
	g.passed = 0
	return true
}

// count ends a check that answered (hit) or not, and a round every
// roomRound checks.
func (g *roomGate) count(hit bool) {
	g.tries++
	if hit {
		g.hits++
	}
	if g.tries == roomRound {
		g.off = g.hits*roomHitsIn < g.tries
		g.tries, g.hits, g.passed = 0, 0, 0
	}
}
