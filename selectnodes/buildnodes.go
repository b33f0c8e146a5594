package selectnodes

import (
	"fmt"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// This file is _build_node_list in Slurm's node_scheduler.c, called by
// select_nodes (selectnodes.go) before _get_req_features (reqfeatures.go).

// NodeSet is one config record's candidates for a request: Slurm's
// node_set, built by _build_node_list. The sets of a request share one
// candidate bitmap, so building them costs no bitmap per set.
type NodeSet struct {
	Record   int // index of the config record, in weight order
	Weight   int64
	Features []string // the record's features; the caller's from BuildNodeSets
	Count    int      // candidate nodes
	cand     *bitset.BitSet
	rec      *record
	of       int // how many sets share cand: their union is cand
}

// Nodes returns the set's candidate nodes (a new bitmap).
func (s NodeSet) Nodes() *bitset.BitSet {
	b := bitset.New(s.cand.Len())
	setSpan(b, s.cand, nil, s.rec)
	return b
}

// BuildNodeSets is _build_node_list: one set per config record with nodes
// in the job's partition, in weight order, after removing excluded nodes
// and nodes whose configuration fails the per-node constraints (features,
// CPUs, memory, disk, GRES; FastSchedule decides whether a record's
// baseline or each node's reported resources count). It then checks that
// every required node is in a set, returning ErrNodeConfig otherwise.
func (c *Cluster) BuildNodeSets(job *Job) ([]NodeSet, error) {
	c.mustBeMade("BuildNodeSets")
	if err := unresolved("BuildNodeSets", job); err != nil {
		return nil, err
	}
	sets, err := c.buildNodeSets(&call{c: c, job: job})
	for k := range sets {
		sets[k].Features = slices.Clone(sets[k].Features) // the record's, which every selection reads
	}
	return sets, err
}

func (c *Cluster) buildNodeSets(cx *call) ([]NodeSet, error) {
	job := cx.job
	part := &c.parts[job.partIndex]
	// The candidates are the partition's own bitmap, read only, when
	// every record keeps its nodes (most requests copy nothing); else the
	// call's bitmap, written record by record (one pass in all).
	cand, write := part.nodes, false
	if job.Excluded != nil {
		cand = part.nodes.Difference(job.Excluded)
	} else if !c.recordsFit(job, part) {
		cand = cx.v.sc.candBitmap(part.nodes.Len())
		write = true
	}
	sets := cx.v.sc.nodeSets(len(c.records))
	total := 0
	for r := range c.records {
		rec := &c.records[r]
		inPart := part.inRec[r]
		why, fits := c.baselineFits(job, rec)
		// cand starts empty: only the records that keep nodes are written
		if write && inPart > 0 && (fits || c.fastSchedule == 0) {
			orSpan(cand, part.nodes, rec)
			cx.v.sc.wroteCand(rec)
		}
		if inPart == 0 {
			continue
		}
		rep := cx.setReport(rec, r, inPart)
		left := inPart
		if job.Excluded != nil {
			left = countSpan(cand, rec)
		}
		rep.removed("excluded", inPart-left, nil)
		if left > 0 && !fits {
			if rep != nil { // only when explaining: why as a Stringer allocates
				rep.removed(why.filter, left, why)
			}
			if c.fastSchedule == 0 {
				left = c.perNodeFits(job, rec, cand)
			} else {
				if !write {
					clearSpan(cand, rec)
				}
				left = 0
			}
		}
		cx.candidates(rep, rec, cand, left)
		if left > 0 {
			sets = append(sets, NodeSet{Record: r, Weight: rec.weight, Features: rec.features, Count: left, cand: cand, rec: rec})
			total += left
		}
	}
	if job.Required != nil && !subsetOf(job.Required, cand) {
		missing := job.Required.Difference(cand)
		return nil, newError(ErrNodeConfig, "required nodes %s are not usable by this job (partition, exclusion or per-node constraints)",
			hostlist.Compress(c.Names(missing)))
	}
	if len(sets) == 0 {
		return nil, newError(ErrNodeConfig, "no node of partition %s meets the per-node constraints", part.Name)
	}
	for k := range sets {
		sets[k].cand, sets[k].of = cand, len(sets)
	}
	if cx.ex != nil { // boxing the arguments allocates, explained or not
		cx.step("%d candidate nodes in %d node sets", total, len(sets))
	}
	return sets, nil
}

// recordsFit reports whether every record with nodes in the partition
// meets the job's per-node constraints by its baseline, so that no node of
// the partition is removed from the candidates.
func (c *Cluster) recordsFit(job *Job, part *partition) bool {
	for r := range c.records {
		if part.inRec[r] > 0 {
			if _, ok := c.baselineFits(job, &c.records[r]); !ok {
				return false
			}
		}
	}
	return true
}

// hostlistOf is the names of nodes idx as a hostlist expression, without
// a list of a million names to build it from.
func (c *Cluster) hostlistOf(idx []int) string {
	return hostlist.CompressFunc(len(idx), func(k int) string { return c.nodes[idx[k]].Name })
}

// misfit is why a configuration fails a per-node constraint, formatted
// only when someone reads it.
type misfit struct {
	filter     string
	have, want int64
	rec        *record
	job        *Job
	gres       *gresNeed
}

func (m misfit) String() string {
	switch m.filter {
	case "features":
		return fmt.Sprintf("features %v do not satisfy %s", m.rec.features, m.job.Req.Features.PerNode())
	case "cpus":
		return fmt.Sprintf("CPUs %d < %d", m.have, m.want)
	case "memory":
		return fmt.Sprintf("RealMemory %d < %d", m.have, m.want)
	case "tmpdisk":
		return fmt.Sprintf("TmpDisk %d < %d", m.have, m.want)
	}
	return fmt.Sprintf("%s: %d < %d", m.gres.req.Name+typeSuffix(m.gres.req.Type), m.have, m.want)
}

// baselineFits checks the record's configuration against the per-node
// constraints and says which fails first.
func (c *Cluster) baselineFits(job *Job, rec *record) (misfit, bool) {
	req := job.Req
	m := misfit{rec: rec, job: job}
	switch {
	case req.Features != nil && !req.Features.Match(rec.features):
		m.filter = "features"
	case req.MinCPUsPerNode > c.idleUnits(job, rec.nodes[0], rec.cpus): // partcap.go, tasklayout.go
		m.filter, m.have, m.want = "cpus", int64(c.idleUnits(job, rec.nodes[0], rec.cpus)), int64(req.MinCPUsPerNode)
	case job.Exclusive && rec.cpus > capCPUs(job, rec.cpus): // a whole node above the cap
		m.filter, m.have, m.want = "cpus", int64(capCPUs(job, rec.cpus)), int64(rec.cpus)
	case req.MinMemoryPerNode > rec.mem:
		m.filter, m.have, m.want = "memory", rec.mem, req.MinMemoryPerNode
	case req.MinTmpDiskPerNode > rec.tmp:
		m.filter, m.have, m.want = "tmpdisk", rec.tmp, req.MinTmpDiskPerNode
	}
	if m.filter != "" {
		return m, false
	}
	for g := range job.gres {
		need := &job.gres[g]
		if have := c.gres.capacity(rec.nodes[0], need); have < need.min {
			return misfit{filter: "gres", have: have, want: need.min, gres: need}, false
		}
	}
	return m, true
}

func typeSuffix(t string) string {
	if t == "" {
		return ""
	}
	return ":" + t
}

// perNodeFits is FastSchedule=0: the baseline fell short, so each node is
// judged by what it reported. Features and GRES are configuration only, so
// a record failing on those loses every node.
func (c *Cluster) perNodeFits(job *Job, rec *record, cand *bitset.BitSet) int {
	left := 0
	for _, i := range rec.nodes {
		if !cand.Test(uint(i)) {
			continue
		}
		if c.reportedFits(job, rec, i) {
			left++
		} else {
			cand.Clear(uint(i))
		}
	}
	return left
}

// reportedFits judges node i of rec by what it reported (FastSchedule=0).
func (c *Cluster) reportedFits(job *Job, rec *record, i int) bool {
	req := job.Req
	e := c.effective(i)
	ok := (req.Features == nil || req.Features.Match(rec.features)) && req.MinCPUsPerNode <= c.idleUnits(job, i, e.CPUs) &&
		(!job.Exclusive || e.CPUs <= capCPUs(job, e.CPUs)) &&
		req.MinMemoryPerNode <= e.RealMemory && req.MinTmpDiskPerNode <= e.TmpDisk
	for g := range job.gres {
		ok = ok && c.gres.capacity(rec.nodes[0], &job.gres[g]) >= job.gres[g].min
	}
	return ok
}

// nodeFits judges node i alone against the job's per-node constraints, as
// BuildNodeSets does for its record, and says why it fails.
func (c *Cluster) nodeFits(job *Job, i int) (why string, ok bool) {
	rec := &c.records[c.recOf[i]]
	m, ok := c.baselineFits(job, rec)
	if ok || (c.fastSchedule == 0 && c.reportedFits(job, rec, i)) {
		return "", true
	}
	return m.filter + ": " + m.String(), false
}
