package selectnodes

import "fmt"

// OfferTerms is what an Offer says of a request before any node is
// asked: the node counts a layout must meet, whether the job takes whole
// nodes, and the fewest CPUs it takes on a node. They come from the
// request, its partition and the configuration, not from the load, and
// are the Offer's own Counts, Whole and CPUsPerNode.
type OfferTerms struct {
	Counts      Counts
	Whole       bool
	CPUsPerNode int
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
	if _, err := c.BuildNodeSets(job); err != nil {
		return OfferTerms{}, err
	}
	return OfferTerms{Counts: n, Whole: c.wholeNodes(job), CPUsPerNode: job.cpusPerNode}, nil
}

// OfferTerms is Cluster.OfferTerms on the snapshot.
func (s *Snapshot) OfferTerms(req *Request) (OfferTerms, error) { return s.c.OfferTerms(req) }

// wholeNodes reports whether job takes whole nodes: an exclusive job, or
// a whole-node selector (Linear).
func (c *Cluster) wholeNodes(job *Job) bool {
	_, linear := c.selector.(Linear)
	return job.Exclusive || linear
}
