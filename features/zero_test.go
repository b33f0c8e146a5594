package features

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The zero Expr, and a nil *Expr, are the empty expression: no constraint.
// Each method used to dereference the missing syntax tree.
func TestZeroExprIsNoConstraint(t *testing.T) {
	ix := IndexNodes([][]string{{"a"}, nil, {"b", "c"}})
	for name, e := range map[string]*Expr{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, "", e.String())
			assert.True(t, e.Match(nil))
			assert.True(t, e.Match([]string{"x"}))
			assert.Equal(t, uint(3), e.Nodes(ix).Count(), "every node satisfies it")
			assert.Nil(t, e.Features())
			assert.Nil(t, e.Alternatives())
			assert.Nil(t, e.Counts())
			assert.False(t, e.CountsBracketed())
			assert.Equal(t, "", e.PerNode())
			assert.NoError(t, e.Validate(func(string) bool { return false }))
			assert.True(t, e.Equal(&Expr{}))
			parsed, err := Parse("a")
			require.NoError(t, err)
			assert.False(t, e.Equal(parsed))
			assert.False(t, parsed.Equal(e))
		})
	}
}

func TestZeroExprTextRoundTrip(t *testing.T) {
	out, err := json.Marshal(struct{ F *Expr }{&Expr{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"F":""}`, string(out))
	var back struct{ F *Expr }
	require.NoError(t, json.Unmarshal(out, &back))
	require.NotNil(t, back.F)
	assert.True(t, back.F.Equal(&Expr{}))
	assert.True(t, back.F.Match(nil))
}

func TestZeroTermIsNoConstraint(t *testing.T) {
	var term Term
	assert.Equal(t, "", term.String())
	assert.True(t, term.Match(nil))
	assert.Equal(t, uint(2), term.Nodes(IndexNodes([][]string{{"a"}, nil})).Count())
}

// A frozen index refuses to grow: an owner that shares it (a cluster) keeps
// what it matches against; before Freeze, Add works as before.
func TestFrozenIndexRefusesAdd(t *testing.T) {
	ix := NewIndex(2)
	ix.Add(0, "gpu")
	require.False(t, ix.Frozen())
	ix.Freeze()
	require.True(t, ix.Frozen())
	require.PanicsWithValue(t, "features: Add to a frozen Index (it is shared read only, as a selectnodes.Cluster's is)",
		func() { ix.Add(1, "gpu") })
	require.Equal(t, uint(1), ix.Nodes("gpu").Count())
}

// The sets an index hands out are the caller's: changing one changes
// neither the index nor what an expression matches on it, so Freeze
// keeps a shared index what its owner matches against.
func TestIndexNodesIsTheCallers(t *testing.T) {
	ix := IndexNodes([][]string{{"a"}, {"a", "b"}, {"b"}})
	ix.Freeze()
	ix.Nodes("a").ClearAll()
	ix.Nodes("b").Set(0)
	e, err := Parse("a&b")
	require.NoError(t, err)
	require.Equal(t, uint(2), ix.Nodes("a").Count())
	require.Equal(t, "{1}", e.Nodes(ix).String())
	require.Nil(t, ix.Nodes("zz"))
}
