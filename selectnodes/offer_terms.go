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

// Candidates is the nodes that meet req's per-node constraints (its
// partition, exclusions, features and the configured CPUs, memory, disk
// and GRES: BuildNodeSets' nodes), whatever the load and the nodes'
// states: the nodes the job could ever be given on this configuration.
// An Offer's Nodes are those of them the load lets take the job now. A
// planner that lays jobs out on runs of neighbouring nodes reads them as
// the job's own row, so that a node no layout of the job may use does not
// split its runs. The error is OfferTerms'. A new bitmap.
func (c *Cluster) Candidates(req *Request) (*bitset.BitSet, error) {
	c.mustBeMade("Candidates")
	job, _, err := c.resolveExact(req)
	if err != nil {
		return nil, err
	}
	sets, err := c.BuildNodeSets(job)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return bitset.New(uint(len(c.nodes))), nil
	}
	return sets[0].cand.Clone(), nil // the sets share one candidate bitmap
}

// Candidates is Cluster.Candidates on the snapshot.
func (s *Snapshot) Candidates(req *Request) (*bitset.BitSet, error) { return s.c.Candidates(req) }
