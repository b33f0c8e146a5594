package auction

import (
	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// passOffers is what a pass asks of its jobs' offers. Most of a window's
// jobs ask the same of the nodes and differ only in their sizes (the
// AUCSCHED3 paper's workloads have four kinds: no GPU, or one, two or
// three a node), so jobs of one selectnodes.OfferKey share one offer a
// pass and one room table an auction: the offer's answers about nodes
// are the same for all of them, and each job's counts and error come
// from its own OfferTerms.
type passOffers struct {
	jobs  map[queue.JobID]*jobOffer
	byKey map[selectnodes.OfferKey]*sharedOffer
	// round counts the pass's auctions: a room table read the load of
	// the round it was made in.
	round int
	// unshared gives every job an offer and room tables of its own (the
	// planner's unshared path, which tests compare with the shared one).
	unshared bool
	// uses is where the pass's problems' bids take their uses: each
	// problem is dropped before the next is made.
	uses *useArena
}

func newPassOffers(unshared bool, uses *useArena) *passOffers {
	return &passOffers{jobs: map[queue.JobID]*jobOffer{}, byKey: map[selectnodes.OfferKey]*sharedOffer{}, unshared: unshared, uses: uses}
}

// jobOffer is what a pass asked of a job's offer: its terms and error
// always (OfferTerms: cheap, the load not read), and the offer it shares
// with the jobs of its key, asked only once one of them may get a bid.
// Free resources only shrink within a pass, so a job that may get a bid
// in a later auction of the pass may in its first one: every offer asked
// is asked there, on the pass's first load, as when every job's offer
// was asked up front.
type jobOffer struct {
	terms selectnodes.OfferTerms
	err   error
	share *sharedOffer
}

// sharedOffer is the offer of one key and, for the auction of round,
// the nodes it gives the key's jobs (eligible) and their room table.
type sharedOffer struct {
	o        *selectnodes.Offer
	alike    int32 // WindowJob.alike of the key's jobs; 0 when unshared
	made     bool  // eligible and room are round's
	round    int
	eligible *bitset.BitSet
	room     func(int) int
	// span is the key's OfferTerms.Span (WindowJob.Span), nil when it is
	// every node; taken from its first job (spanMade).
	span     *bitset.BitSet
	spanMade bool
}

// job is j's jobOffer, its terms asked the first time in the pass.
func (po *passOffers) job(snap *selectnodes.Snapshot, j *queue.Job) *jobOffer {
	if jo := po.jobs[j.ID]; jo != nil {
		return jo
	}
	jo := &jobOffer{}
	jo.terms, jo.err = snap.OfferTerms(&j.Request)
	if jo.err == nil {
		jo.share = po.shared(snap, &j.Request)
	}
	po.jobs[j.ID] = jo
	return jo
}

// shared is the sharedOffer of req's key: the one its alike jobs have, or
// a new one (its own when offers are not shared or req has no key).
func (po *passOffers) shared(snap *selectnodes.Snapshot, req *selectnodes.Request) *sharedOffer {
	key, ok := snap.OfferKey(req)
	if po.unshared || !ok {
		return &sharedOffer{}
	}
	so := po.byKey[key]
	if so == nil {
		so = &sharedOffer{alike: int32(len(po.byKey) + 1)}
		po.byKey[key] = so
	}
	return so
}

// offer is the key's offer, asked with req the first time. OfferTerms
// succeeded for req, so Offer does too: it makes the same checks.
func (jo *jobOffer) offer(snap *selectnodes.Snapshot, req *selectnodes.Request) (*selectnodes.Offer, error) {
	so := jo.share
	if so.o == nil {
		o, err := snap.Offer(req)
		if err != nil {
			return nil, err
		}
		so.o = o
	}
	return so.o, nil
}

// span is the nodes the key's jobs could ever use (WindowJob.Span),
// nil when that is every node, so that a job whose partition is the
// whole machine scans its runs as before: the first job's OfferTerms'
// Span, shared by the key's jobs (their candidates are alike).
func (jo *jobOffer) span() *bitset.BitSet {
	so := jo.share
	if !so.spanMade {
		so.span, so.spanMade = jo.terms.Span, true
	}
	return so.span
}

// nodes is what the shared offer gives its jobs in the pass's current
// auction: the nodes they may bid on (offerNodes, less those with no CPU
// to give) and their room on each, made once an auction for all of the
// key's jobs. The bitmap is shared: bid generation only reads it.
func (po *passOffers) nodes(snap *selectnodes.Snapshot, so *sharedOffer, typed bool, gpu string) (*bitset.BitSet, func(int) int) {
	if !so.made || so.round != po.round {
		so.eligible = offerNodes(snap, so.o, typed, gpu)
		so.room = roomTable(so.o, so.eligible, snap.NodeCount())
		so.made, so.round = true, po.round
	}
	return so.eligible, so.room
}
