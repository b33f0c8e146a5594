package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// A probe too few nodes can take. Replaying a trace of many-core nodes
// (MetaCentrum's: nodes of 80 and 12 cores, jobs asking 8-80 cores on one
// node), most probes of an EASY pass are jobs asking more cores on a node
// than any node has free: the cluster's free cores are many but spread
// thin. Conservative backfill's probes on the empty cluster, with the
// nodes busy in a window withheld, mostly find too few of the nodes left
// with enough cores. The pipeline found that out at the end of a whole
// selection (the partition's checks, the node sets and their features,
// the load filter node by node over every set's span), and a probe reads
// only that it failed. noRoom finds it first, from the nodes' CPUs and
// the load alone, reading each node of the partition at most once and
// stopping as soon as enough might be usable.

// noRoom reports whether fewer nodes of job's partition than the job's
// minimum can be usable to it in mode (RunNow or TestOnly), so that the
// selection fails whatever its node sets, counts and selector would do:
// accumulate calls the selector only with at least NodeCounts' Min usable
// nodes, and Min is at least max(MinNodes, 1, the partition's MinNodes).
// It answers only when that follows from the nodes' CPUs: for a job
// without counted feature terms, in TestOnly (no load: every node is as
// idle), or in RunNow under a built-in selector's load filter for a job
// that does not share nodes; otherwise it reports false and the pipeline
// decides.
//
// A node the pipeline finds usable is available, in the partition, and
// either idle, or busy under ConsRes for a job that is not exclusive, in
// the share mask and with room: its free CPUs (freeOf, at most its CPUs
// less their load) at least the job's CPUs per node. An idle node is in a
// node set only if its record's CPUs, or under FastSchedule 0 its own
// reported ones, reach the job's MinCPUsPerNode (baselineFits,
// reportedFits; idleUnits never exceeds the CPUs it is given). noRoom
// counts the nodes passing these tests, a superset of the usable ones.
func (c *Cluster) noRoom(job *Job, mode Mode) bool {
	if job.Req.Features != nil && len(job.Req.Features.Counts()) > 0 {
		return false
	}
	t := roomTest{job: job, empty: mode == TestOnly, own: c.fastSchedule == 0 && c.reported != nil}
	if !t.empty {
		lf, ok := builtinFilter(c.selector)
		if !ok || job.Shared {
			return false
		}
		_, consRes := lf.(ConsRes)
		t.busy = consRes && !job.Exclusive
	}
	part := &c.parts[job.partIndex]
	left := max(job.Req.MinNodes, 1, job.Part.MinNodes)
	for r := range c.records {
		if part.inRec[r] > 0 {
			if left -= c.recordRoom(&c.records[r], part.nodes, t, left); left <= 0 {
				return false
			}
		}
	}
	return true
}

// roomTest is what noRoom asks of every node: empty, whether the load is
// none (TestOnly: every node counts as idle); busy, whether a busy node
// may have room at all (ConsRes, a job not exclusive); own, whether a
// node's CPUs may be the ones it reported (FastSchedule 0), else they are
// its record's.
type roomTest struct {
	job              *Job
	empty, busy, own bool
}

// recordRoom counts the nodes of rec in the partition (part) that may be
// usable to the job, up to enough (it stops there). Nodes of one record
// have its CPUs, so unless they may have their own, the record's CPUs
// rule out its idle nodes, or its busy ones, all at once; a busy node of
// a record that may fit is judged by its load.
func (c *Cluster) recordRoom(rec *record, part *bitset.BitSet, t roomTest, enough int) int {
	job := t.job
	idleMay, busyMay := rec.cpus >= job.Req.MinCPUsPerNode, t.busy && rec.cpus >= job.cpusPerNode
	if !t.own && !idleMay && !busyMay {
		return 0
	}
	words := part.Words()[rec.wlo:rec.whi]
	avail, idle, share := job.availNodes.Words()[rec.wlo:], c.use.idle.Words()[rec.wlo:], c.use.share.Words()[rec.wlo:]
	n := 0
	for k, rw := range rec.words {
		cand, idleW := words[k]&avail[k]&rw, ^uint64(0)
		if !t.empty {
			idleW = idle[k]
		}
		switch {
		case t.own:
			n += c.ownRoom(cand, idleW, share[k], rec.wlo+k, t)
		case idleMay:
			n += bits.OnesCount64(cand & idleW)
		}
		if !t.own && busyMay {
			for w := cand &^ idleW & share[k]; w != 0 && n < enough; w &= w - 1 {
				if i := (rec.wlo+k)*64 + bits.TrailingZeros64(w); rec.cpus-c.use.cpus[i] >= job.cpusPerNode {
					n++
				}
			}
		}
		if n >= enough {
			break
		}
	}
	return n
}

// ownRoom is recordRoom's count of the candidates cand of word k (idle
// the word's idle nodes), node by node, for nodes that may have reported
// CPUs of their own: an idle node is in a node set only if its record's
// CPUs or its own reach the job's MinCPUsPerNode (baselineFits,
// reportedFits), a busy one is usable only with its own CPUs less their
// load at least the job's CPUs per node.
func (c *Cluster) ownRoom(cand, idle, share uint64, k int, t roomTest) int {
	job, n := t.job, 0
	for w := cand & idle; w != 0; w &= w - 1 {
		if i := k*64 + bits.TrailingZeros64(w); max(c.nodes[i].CPUs, c.effective(i).CPUs) >= job.Req.MinCPUsPerNode {
			n++
		}
	}
	if !t.busy {
		return n
	}
	for w := cand &^ idle & share; w != 0; w &= w - 1 {
		if i := k*64 + bits.TrailingZeros64(w); c.effective(i).CPUs-c.use.cpus[i] >= job.cpusPerNode {
			n++
		}
	}
	return n
}
