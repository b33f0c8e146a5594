package topology

import (
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// A nil topology or a nil avail is an error that says so, not a panic.
func TestNilArgumentsAreErrors(t *testing.T) {
	_, err := FromConfig(nil, []string{"n1"})
	require.ErrorContains(t, err, "topology is nil")
	var te *Error
	require.ErrorAs(t, err, &te)
	names, tr := Seed001()
	_, err = tr.Fit(nil, Request{Nodes: 1})
	require.ErrorContains(t, err, "avail is nil")
	_, err = tr.FitWith(new(Scratch), nil, Request{Nodes: 1})
	require.Error(t, err)
	// a bitmap with bits beyond the universe is read for the universe only
	big := bitset.New(uint(len(names)) + 100)
	big.Set(uint(len(names)) + 50)
	big.Set(3)
	got, err := tr.Fit(big, Request{Nodes: 1})
	require.NoError(t, err)
	require.Equal(t, []int{3}, got)
}
