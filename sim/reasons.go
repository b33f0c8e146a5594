package sim

import (
	"errors"
	"strings"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// unrunnableReason names, in a few stable words, why a request can never
// run on c: it relaxes one part of the request at a time and reports the
// first whose removal makes a TestOnly selection succeed, else the
// selection's own reason.
func unrunnableReason(c *selectnodes.Cluster, req *selectnodes.Request, err error) string {
	var se *selectnodes.Error
	if err != nil && !errors.As(err, &se) {
		// a plugin failed it ("plugin: reason"): name the plugin, not a guess
		if plugin, _, ok := strings.Cut(err.Error(), ": "); ok && !strings.Contains(plugin, " ") {
			return "refused by the " + plugin + " plugin"
		}
	}
	if req.Partition != "" {
		if !c.HasPartition(req.Partition) {
			return "no such partition"
		}
	}
	fits := func(change func(r *selectnodes.Request)) bool {
		r := *req
		change(&r)
		_, ok := c.Probe(&r, selectnodes.TestOnly)
		return ok
	}
	cores, perNode, nodes := 0, 0, 0
	for i := 0; i < c.NodeCount(); i++ {
		cores += c.Node(i).CPUs
		perNode = max(perNode, c.Node(i).CPUs)
		nodes++
	}
	pNodes, pCores := partitionSize(c, req.Partition)
	switch {
	case req.MinNodes > nodes:
		return "more nodes than the cluster has"
	case req.CPUs > cores:
		return "more CPUs than the cluster has"
	case req.MinNodes > pNodes:
		return "more nodes than its partition has"
	case req.CPUs > pCores:
		return "more CPUs than its partition has"
	case req.MinCPUsPerNode > perNode:
		return "more CPUs per node than any node has"
	case req.Features != nil && fits(func(r *selectnodes.Request) { r.Features = nil }):
		return "no node has the requested features"
	case (len(req.Required) > 0 || len(req.Excluded) > 0) && fits(func(r *selectnodes.Request) { r.Required, r.Excluded = nil, nil }):
		return "the named or excluded nodes rule it out"
	case len(req.GRES) > 0 && fits(func(r *selectnodes.Request) { r.GRES = nil }):
		return "more GRES than the nodes have"
	case req.Share == selectnodes.ShareExclusiveJob && fits(func(r *selectnodes.Request) { r.Share = 0 }):
		return "exclusive nodes cannot hold it"
	}
	if errors.As(err, &se) {
		return selectnodes.ClassName(err) + ": " + strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#' // group reasons that differ only in counts
			}
			return r
		}, se.Reason)
	}
	if err != nil {
		return err.Error()
	}
	return "unknown"
}

// partitionSize is the nodes and CPUs of the partition a request names,
// else of the default one (the whole cluster when there is none).
func partitionSize(c *selectnodes.Cluster, name string) (nodes, cpus int) {
	if name == "" {
		name = c.DefaultPartition()
	}
	p, ok := c.Partition(name)
	if !ok {
		for i := 0; i < c.NodeCount(); i++ {
			cpus += c.Node(i).CPUs
		}
		return c.NodeCount(), cpus
	}
	for _, n := range p.Nodes {
		if i, ok := c.NodeIndex(n); ok {
			cpus += c.Node(i).CPUs
		}
	}
	return len(p.Nodes), cpus
}

// explanationErr is the failure a job that never started ended with.
func explanationErr(j queue.Job) error {
	if j.Explanation != nil && j.Explanation.Class != nil {
		return &selectnodes.Error{Class: j.Explanation.Class, Reason: j.Explanation.Reason}
	}
	if j.ReasonDetail != "" {
		return errors.New(j.ReasonDetail)
	}
	return errors.New(string(j.Reason))
}
