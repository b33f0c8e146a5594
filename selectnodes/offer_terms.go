package selectnodes

import (
	"fmt"

	"github.com/bits-and-blooms/bitset"
)

// OfferTerms is what an Offer says of a request before any node is
// asked: the node counts a layout must meet, whether the job takes whole
// nodes, and the fewest CPUs it takes on a node. They come from the
// request, its partition and the configuration, not from the load, and
// are the Offer's own Counts, Whole and CPUsPerNode.
type OfferTerms struct {
	Counts      Counts
	Whole       bool
	CPUsPerNode int
	// Span is the nodes that meet the request's per-node constraints
	// (its partition, exclusions, features and the configured CPUs,
	// memory, disk and GRES: BuildNodeSets' nodes), whatever the load and
	// the nodes' states: the nodes the job could ever be given. nil when
	// that is every node. An Offer's Nodes are those of them the load
	// lets take the job now. A planner that lays jobs out on runs of
	// neighbouring nodes reads Span as the job's own row, so that a node
	// the job may never use does not split its runs. The caller's.
	Span *bitset.BitSet
}

// OfferTerms is Offer without the load: the same error Offer returns for
// req (so the same as PlaceExact's for any layout of it: an invalid
// request, a held job, a partition that refuses it, node counts it cannot
// meet, no node meeting its per-node constraints), and the terms of the
// offer it would return, without filtering every node against the load.
// A planner that first needs to know whether a job can be expressed at
// all, and asks for the nodes only of jobs that may fit, asks this of
// every job and Offer of a few (an auction's window is mostly jobs that
// cannot fit the free resources of the moment).
//
// A nil or zero Cluster (one not made by New or FromConfig) is an
// ErrNilArgument, not a panic.
func (c *Cluster) OfferTerms(req *Request) (OfferTerms, error) {
	if c.unmade() {
		return OfferTerms{}, fmt.Errorf("%w: selectnodes.Cluster.OfferTerms: no cluster (make one with New or FromConfig)", ErrNilArgument)
	}
	job, n, err := c.resolveExact(req)
	if err != nil {
		return OfferTerms{}, err
	}
	sets, err := c.buildNodeSets(&call{c: c, job: job}) // (their Features are the records': read only here)
	if err != nil {
		return OfferTerms{}, err
	}
	t := OfferTerms{Counts: n, Whole: c.wholeNodes(job), CPUsPerNode: job.cpusPerNode}
	// the sets share one candidate bitmap, which may be the partition's
	// own or scratch space: a copy, and only when some node is not in it
	switch {
	case len(sets) == 0:
		t.Span = bitset.New(uint(len(c.nodes)))
	case sets[0].cand.Count() < uint(len(c.nodes)):
		t.Span = sets[0].cand.Clone()
	}
	return t, nil
}

// OfferTerms is Cluster.OfferTerms on the snapshot.
func (s *Snapshot) OfferTerms(req *Request) (OfferTerms, error) { return s.c.OfferTerms(req) }

// wholeNodes reports whether job takes whole nodes: an exclusive job, or
// a whole-node selector (Linear).
func (c *Cluster) wholeNodes(job *Job) bool {
	_, linear := c.selector.(Linear)
	return job.Exclusive || linear
}
