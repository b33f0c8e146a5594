package selectnodes

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OfferTerms says what Offer says, error and terms alike, on random
// clusters, loads and requests (held jobs and bad partitions included).
func TestOfferTermsAgreeWithOffer(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	refused := 0
	for range iterations(600, 6000) {
		sel := []Selector{ConsRes{}, Linear{}}[r.IntN(2)]
		c, nodes, _ := randomCluster(r, sel)
		loadRandomly(r, c, nodes)
		req := offerRequest(r, nodes)
		switch r.IntN(10) {
		case 0:
			req.Held = true
		case 1:
			req.Partition = "nosuch"
		}
		snap := c.Snapshot()
		o, oerr := snap.Offer(req)
		terms, terr := snap.OfferTerms(req)
		if oerr != nil {
			refused++
			require.Error(t, terr, "offer refused %+v: %v", req, oerr)
			assert.Equal(t, oerr.Error(), terr.Error())
			var oe, te *Error
			if errors.As(oerr, &oe) {
				require.ErrorAs(t, terr, &te)
				assert.Equal(t, oe.Class, te.Class)
			}
			continue
		}
		require.NoError(t, terr, "request %+v", req)
		span := terms.Span
		terms.Span = nil
		assert.Equal(t, OfferTerms{Counts: o.Counts(), Whole: o.Whole(), CPUsPerNode: o.CPUsPerNode()}, terms)
		if span != nil { // the offer's nodes are some of the span's
			assert.True(t, span.IsSuperSet(o.Nodes()), "request %+v", req)
		}
	}
	assert.Positive(t, refused)
}

func TestOfferTermsNamedCases(t *testing.T) {
	c := exactCluster(t)
	_, err := c.OfferTerms(nil)
	assert.ErrorIs(t, err, ErrInvalidRequest)
	_, err = c.OfferTerms(&Request{MinMemoryPerNode: 5000})
	assert.ErrorIs(t, err, ErrNodeConfig, "no node has the memory")
	_, err = c.OfferTerms(&Request{CPUs: 1, Held: true})
	assert.ErrorIs(t, err, ErrHeld)
	terms, err := c.OfferTerms(&Request{CPUs: 4, Share: ShareExclusiveJob})
	require.NoError(t, err)
	assert.True(t, terms.Whole)
	assert.Equal(t, 1, terms.CPUsPerNode)
}

// A cluster not made by New or FromConfig is an error, not a panic.
func TestOfferTermsZeroCluster(t *testing.T) {
	var zero Cluster
	var none *Cluster
	for _, c := range []*Cluster{&zero, none} {
		require.NotPanics(t, func() {
			_, err := c.OfferTerms(&Request{CPUs: 2})
			assert.ErrorIs(t, err, ErrNilArgument)
		})
	}
}
