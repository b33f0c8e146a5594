package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// A probe that no node can take. Replaying a trace of many-core nodes
// (MetaCentrum's: nodes of 80 and 12 cores, jobs asking 8-80 cores on one
// node), most probes of an EASY pass are jobs asking more cores on a node
// than any node has free: the cluster's free cores are many but spread
// thin. The pipeline found that out at the end of a whole selection
// (the partition's checks, the node sets and their features, the load
// filter node by node over every set's span), and a probe reads only that
// it failed. noRoom finds it first, from the load alone, reading each
// node of the partition once and stopping at the first that might be
// usable.

// noRoom reports whether no node of job's partition can be usable to it
// under the live load, so that a RunNow selection fails whatever its node
// sets, counts and selector would do: accumulate never has a usable node,
// and a job always needs at least one (NodeCounts' Min). It answers only
// when that follows from the built-in selectors' load filters, for a job
// that does not share nodes and has no counted feature terms; otherwise
// it reports false and the pipeline decides.
//
// A node the filters keep (usable) is available, and either idle, or
// busy under ConsRes for a job that is not exclusive, in the share mask
// and with room: its free CPUs (freeOf, at most its CPUs less their load)
// at least the job's CPUs per node. An idle node is in a node set only if
// its record's CPUs, or under FastSchedule 0 its own reported ones, reach
// the job's MinCPUsPerNode (baselineFits, reportedFits; idleUnits never
// exceeds the CPUs it is given). Every node passing neither test is out
// of every set's usable nodes, so with none left the pipeline's answer is
// a failure.
func (c *Cluster) noRoom(job *Job) bool {
	lf, ok := builtinFilter(c.selector)
	if !ok || job.Shared || (job.Req.Features != nil && len(job.Req.Features.Counts()) > 0) {
		return false
	}
	_, consRes := lf.(ConsRes)
	room := roomTest{job: job, busy: consRes && !job.Exclusive, own: c.fastSchedule == 0 && c.reported != nil}
	part := &c.parts[job.partIndex]
	for r := range c.records {
		rec := &c.records[r]
		if part.inRec[r] > 0 && !c.recordFull(rec, part.nodes, room) {
			return false
		}
	}
	return true
}

// roomTest is what noRoom asks of every node: busy, whether a busy node
// may have room at all (ConsRes, a job not exclusive); own, whether a
// node's CPUs may be the ones it reported (FastSchedule 0), else they are
// its record's.
type roomTest struct {
	job       *Job
	busy, own bool
}

// recordFull reports whether no node of rec in the partition (part) can
// be usable to the job. Nodes of one record have its CPUs, so unless
// they may have their own, the record's CPUs rule out its idle nodes, or
// its busy ones, all at once; a busy node of a record that may fit is
// judged by its load.
func (c *Cluster) recordFull(rec *record, part *bitset.BitSet, t roomTest) bool {
	job := t.job
	idleMay, busyMay := rec.cpus >= job.Req.MinCPUsPerNode, t.busy && rec.cpus >= job.cpusPerNode
	if !t.own && !idleMay && !busyMay {
		return true
	}
	words := part.Words()[rec.wlo:rec.whi]
	avail, idle, share := job.availNodes.Words()[rec.wlo:], c.use.idle.Words()[rec.wlo:], c.use.share.Words()[rec.wlo:]
	for k, rw := range rec.words {
		cand := words[k] & avail[k] & rw
		if t.own {
			if !c.ownFull(cand, idle[k], share[k], rec.wlo+k, t) {
				return false
			}
			continue
		}
		if idleMay && cand&idle[k] != 0 {
			return false
		}
		if !busyMay {
			continue
		}
		for w := cand &^ idle[k] & share[k]; w != 0; w &= w - 1 {
			if i := (rec.wlo+k)*64 + bits.TrailingZeros64(w); rec.cpus-c.use.cpus[i] >= job.cpusPerNode {
				return false
			}
		}
	}
	return true
}

// ownFull is recordFull's test of the candidates cand of word k node by
// node, for nodes that may have reported CPUs of their own: an idle node
// is in a node set only if its record's CPUs or its own reach the job's
// MinCPUsPerNode (baselineFits, reportedFits), a busy one is usable only
// with its own CPUs less their load at least the job's CPUs per node.
func (c *Cluster) ownFull(cand, idle, share uint64, k int, t roomTest) bool {
	job := t.job
	for w := cand & idle; w != 0; w &= w - 1 {
		i := k*64 + bits.TrailingZeros64(w)
		if max(c.nodes[i].CPUs, c.effective(i).CPUs) >= job.Req.MinCPUsPerNode {
			return false
		}
	}
	if !t.busy {
		return true
	}
	for w := cand &^ idle & share; w != 0; w &= w - 1 {
		if i := k*64 + bits.TrailingZeros64(w); c.effective(i).CPUs-c.use.cpus[i] >= job.cpusPerNode {
			return false
		}
	}
	return true
}
