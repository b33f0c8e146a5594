package features

import (
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNilIndexIsEmpty: a nil *Index reads as the index of no nodes, so
// every evaluation against it is the empty set of 0 nodes; it used to
// dereference the index and panic.
func TestNilIndexIsEmpty(t *testing.T) {
	var ix *Index
	assert.Zero(t, ix.Len())
	assert.False(t, ix.Has("a"))
	assert.Nil(t, ix.Nodes("a"))
	assert.Nil(t, ix.Names())
	assert.False(t, ix.Frozen())
	for _, text := range []string{"a", "a&b|c", "[a|b]", "a*2", "[a*2&b*3]", "(a|b)&c"} {
		e, err := Parse(text)
		require.NoError(t, err, text)
		assert.Zero(t, e.Nodes(ix).Len(), text)
		dst := bitset.New(5).SetAll()
		e.NodesInto(ix, dst)
		assert.Zero(t, dst.Len(), text)
		for _, alt := range e.Alternatives() {
			assert.Zero(t, alt.Nodes(ix).Len(), text)
		}
	}
	assert.PanicsWithValue(t, "features: Add to a nil Index (make one with NewIndex or IndexNodes)", func() { ix.Add(0, "a") })
}

// TestNilArgumentsSaySo: NodesInto without a set panics naming the
// mistake, and Validate without a known function is an error, not a
// nil dereference.
func TestNilArgumentsSaySo(t *testing.T) {
	e, err := Parse("a&b")
	require.NoError(t, err)
	ix := IndexNodes([][]string{{"a", "b"}})
	assert.PanicsWithValue(t, "features: NodesInto needs a set to write into, not nil", func() { e.NodesInto(ix, nil) })
	assert.ErrorContains(t, e.Validate(nil), "Validate needs a known function")
	assert.NoError(t, e.Validate(ix.Has))
}
