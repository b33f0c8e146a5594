package selectnodes

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A layout's GRES counts are checked against the node before they are
// added up, so no sum runs past the int64 range into a negative count;
// and one GRES named twice on a node is refused: each entry fit the
// node's capacity alone, and the two together took 4 of its 2 GPUs.
func TestPlaceExactGRESCountsAreBounded(t *testing.T) {
	c := exactCluster(t)
	req := &Request{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: math.MaxInt64}}}
	huge := []GRES{{Name: "gpu", Type: "v100", Count: math.MaxInt64}}
	_, err := c.PlaceExact(req, []NodeUse{{Node: 3, CPUs: 1, GRES: huge}})
	require.ErrorIs(t, err, ErrNodeConfig)
	assert.ErrorContains(t, err, "n3 has 2 gpu:v100, the layout gives 9223372036854775807")

	twice := []GRES{{Name: "gpu", Type: "v100", Count: 2}, {Name: "gpu", Type: "v100", Count: 2}}
	_, err = c.PlaceExact(req, []NodeUse{{Node: 3, CPUs: 1, GRES: twice}})
	require.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, "gpu:v100 twice")
}
