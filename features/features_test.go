package features

import (
	"errors"
	"strings"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors: n0={f0}, n1={f1}, n2={f0,f2,f4}, n3={f0,f2,f3,f4}.
var vectorNodes = [][]string{{"f0"}, {"f1"}, {"f0", "f2", "f4"}, {"f0", "f2", "f3", "f4"}}

func members(s *bitset.BitSet) []uint {
	out := []uint{}
	for i, ok := s.NextSet(0); ok; i, ok = s.NextSet(i + 1) {
		out = append(out, i)
	}
	return out
}

func TestNodesVectors(t *testing.T) {
	ix := IndexNodes(vectorNodes)
	tests := []struct {
		expr string
		want []uint
	}{
		{"f2&f3", []uint{3}},
		{"f1&f3", []uint{}},
		{"(f0|f2)", []uint{0, 2, 3}},
		{"(f1|f3)", []uint{1, 3}},
		{"f0&(f2|f3)", []uint{2, 3}},
		{"f0|f1", []uint{0, 1, 2, 3}},
		{"f0,f2", []uint{2, 3}},
		{"f1|f0&f4", []uint{2, 3}},               // (f1|f0)&f4, not f1|(f0&f4)
		{"f4&f0|f1", []uint{1, 2, 3}},            // (f4&f0)|f1
		{"f4&[f1|f0]", []uint{2, 3}},             // bracket as OR of alternatives
		{"[f1|f3]", []uint{1, 3}},                // matching OR alone
		{"[(f0&f2)*2&f1*1]", []uint{0, 1, 2, 3}}, // counts leave every node usable
		{"f0&[f2*1&f3*1]", []uint{0, 2, 3}},
		{"f2*2", []uint{0, 1, 2, 3}},
		{"nosuch", []uint{}},
		{"nosuch|f1", []uint{1}},
		{"f1|nosuch", []uint{1}},
		{"f0&nosuch", []uint{}},
		{"(nosuch|f3)&f0", []uint{3}},
		{" f0 & f2 ", []uint{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := Parse(tt.expr)
			require.NoError(t, err)
			got := e.Nodes(ix)
			assert.Equal(t, tt.want, members(got))
			assert.Equal(t, uint(len(vectorNodes)), got.Len())
			for i, fs := range vectorNodes {
				assert.Equal(t, got.Test(uint(i)), e.Match(fs), "Match node %d", i)
			}
		})
	}
}

func TestCountsAndAlternatives(t *testing.T) {
	e, err := Parse("[(f0&f2)*2&f1*1]")
	require.NoError(t, err)
	counts := e.Counts()
	require.Len(t, counts, 2)
	assert.Equal(t, "(f0&f2)", counts[0].Term.String())
	assert.Equal(t, 2, counts[0].N)
	assert.Equal(t, "f1*1", counts[1].String())
	ix := IndexNodes(vectorNodes)
	assert.Equal(t, []uint{2, 3}, members(counts[0].Term.Nodes(ix)))
	assert.Equal(t, []uint{1}, members(counts[1].Term.Nodes(ix)))
	assert.True(t, counts[0].Term.Match([]string{"f2", "f0"}))
	assert.Nil(t, e.Alternatives())
	assert.Equal(t, "", e.PerNode())

	e, err = Parse("f4&[rack1|rack2|rack3]")
	require.NoError(t, err)
	alts := e.Alternatives()
	require.Len(t, alts, 3)
	assert.Equal(t, "rack2", alts[1].String())
	assert.Nil(t, e.Counts())
	assert.Equal(t, "f4&(rack1|rack2|rack3)", e.PerNode())

	e, err = Parse("graphics*4")
	require.NoError(t, err)
	require.Len(t, e.Counts(), 1)
	assert.Equal(t, "graphics*4", e.Counts()[0].String())

	e, err = Parse("[(knl&snc4&flat)*4&haswell*1]")
	require.NoError(t, err)
	assert.Equal(t, "(knl&snc4&flat)*4", e.Counts()[0].String())
	assert.Equal(t, []string{"knl", "snc4", "flat", "haswell"}, e.Features())
}

func TestLegacyDecomposition(t *testing.T) {
	tests := []struct {
		expr, perNode string
		alts          []string
		counts        []string
	}{
		{"A|B&[C|D]|E", "A|B&(C|D)|E", []string{"C", "D"}, nil},
		{"A&B*1&C*2&D", "A&D", nil, []string{"B*1", "C*2"}},
		{"A*1&B*2", "", nil, []string{"A*1", "B*2"}},
		{"[A|B]", "(A|B)", []string{"A", "B"}, nil},
		{"A&B|C", "A&B|C", nil, nil},
		{"[a*2&b*3]&c", "c", nil, []string{"a*2", "b*3"}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := Parse(tt.expr, Legacy())
			require.NoError(t, err)
			assert.Equal(t, tt.perNode, e.PerNode())
			var alts, counts []string
			for _, a := range e.Alternatives() {
				alts = append(alts, a.String())
			}
			for _, c := range e.Counts() {
				counts = append(counts, c.String())
			}
			assert.Equal(t, tt.alts, alts)
			assert.Equal(t, tt.counts, counts)
			back, err := Parse(e.String(), Legacy())
			require.NoError(t, err)
			assert.True(t, e.Equal(back))
		})
	}
	// per-node evaluation of the legacy chain: A|B&(C|D)|E
	ix := IndexNodes([][]string{{"A", "C"}, {"B"}, {"E"}, {"D"}})
	e, err := Parse("A|B&[C|D]|E", Legacy())
	require.NoError(t, err)
	assert.Equal(t, []uint{0, 2}, members(e.Nodes(ix)))
	e, err = Parse("A&B*1&C*2&D", Legacy())
	require.NoError(t, err)
	ix = IndexNodes([][]string{{"A", "D"}, {"A"}, {"A", "D", "B"}})
	assert.Equal(t, []uint{0, 2}, members(e.Nodes(ix)))
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		expr string
		pos  int
		msg  string
	}{
		{"a&&b", 2, "expected a feature name, found '&'"},
		{"A||B", 2, "found '|'"},
		{"a&", 2, "ends after '&'"},
		{"&a", 0, "found '&'"},
		{"[a|b", 0, "never closed"},
		{"a]", 1, "']' without"},
		{"a)", 1, "')' without"},
		{"a[b|c]", 1, "before '['"},
		{"[a|b]&[c|d]", 6, "only one bracket group"},
		{"((a|b)&c)", 1, "cannot be nested"},
		{"(a)b", 3, "found 'b'"},
		{"a*", 2, "expected a count"},
		{"*2", 0, "found '*'"},
		{"a*0", 2, "at least 1"},
		{"a*x", 2, "expected a count"},
		{"[a*2|b]", 1, "count cannot be used in a matching OR"},
		{"[a*1&b]", 5, `"b" has no count`},
		{"[a&b]", 0, "needs a count on every term"},
		{"A*1&B*2", 0, "write [A*1&B*2]"},
		{"a&b*2", 2, "only for a single term"},
		{"", 0, "empty expression"},
		{"  ", 2, "empty expression"},
		{"()", 0, "empty parentheses"},
		{"[]", 0, "empty brackets"},
		{"(a|b", 0, "'(' is never closed"},
		{"[a|b]|c", 0, "joined to the rest with '&'"},
		{"c|[a|b]", 2, "joined to the rest with '&'"},
		{"[a|b]&c|d", 0, "joined to the rest with '&'"},
		{"[a*1&b*1]|c", 0, "counted bracket"},
		{"[a|b&c]", 0, "not both"},
		{"[(a|b)|c]", 1, "must be feature names"},
		{"(a*2)", 2, "inside parentheses"},
		{"(a&[b|c])", 3, "inside parentheses"},
		{"a b", 2, "found 'b'"},
		{"a=b", 1, "found '='"},
		{"[a|b]*2", 5, "found '*'"},
		{"a*99999999999", 2, "larger than 16777216 (MaxCount)"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := Parse(tt.expr)
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "want *SyntaxError, got %v", err)
			assert.Equal(t, tt.pos, se.Pos.Offset, se.Error())
			assert.Equal(t, tt.pos+1, se.Pos.Column, "one-line expressions: column is offset+1")
			assert.Contains(t, se.Msg, tt.msg)
		})
	}
}

func TestLegacyErrors(t *testing.T) {
	tests := []struct{ expr, msg string }{
		{"A*1|B*2", "cannot be combined with '|'"},
		{"A*1&[B|C]", "matching OR"},
		{"A*1&[B*1&C*1]", "counted bracket"},
		{"A&&B", "found '&'"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.expr, Legacy())
		assert.ErrorContains(t, err, tt.msg, tt.expr)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []string{"a&b", "a,b", "a|b&c", "foo&(bar|baz)", "(f0|f2)", "[rack1|rack2|rack3]",
		"[rack1*2&rack2*4]", "[(rack1|rack2)*1&rack3*2]", "[(knl&snc4&flat)*4&haswell*1]", "f4&[f1|f0]",
		"graphics*4", "GPU_SKU:V100&CPU_FRQ:2.30GHz", " a , b ", "(a|b)*3", "a&b&[c*1,d*2]"} {
		e, err := Parse(s)
		require.NoError(t, err, s)
		back, err := Parse(e.String())
		require.NoError(t, err, e.String())
		assert.True(t, e.Equal(back), "%q -> %q", s, e.String())
		assert.Equal(t, e.String(), back.String())
	}
	e, _ := Parse(" a , b|c ")
	assert.Equal(t, "a&b|c", e.String())
}

func TestValidate(t *testing.T) {
	ix := IndexNodes(vectorNodes)
	e, err := Parse("f0 & (f2|gpu)")
	require.NoError(t, err)
	err = e.Validate(ix.Has)
	var ue *UnknownFeatureError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "gpu", ue.Feature)
	assert.Equal(t, position.Position{Line: 1, Column: 10, Offset: 9}, ue.Pos)
	pos, ok := position.Of(err)
	assert.True(t, ok)
	assert.Equal(t, ue.Pos, pos)
	assert.Contains(t, err.Error(), `no node has feature "gpu"`)
	var se *SyntaxError
	assert.False(t, errors.As(err, &se), "unknown features are not syntax errors")

	e, _ = Parse("[f1*1&f2*2]")
	assert.NoError(t, e.Validate(ix.Has))
}

func TestIndex(t *testing.T) {
	ix := NewIndex(3)
	ix.Add(0, "a", "b")
	ix.Add(2, "b")
	assert.Equal(t, 3, ix.Len())
	assert.Equal(t, []string{"a", "b"}, ix.Names())
	assert.True(t, ix.Has("b"))
	assert.False(t, ix.Has("c"))
	assert.Equal(t, []uint{0, 2}, members(ix.Nodes("b")))
	assert.Panics(t, func() { ix.Add(3, "x") })
}

func TestNodesIntoReusesAndResizes(t *testing.T) {
	ix := IndexNodes(vectorNodes)
	e, _ := Parse("f0&f2")
	dst := bitset.New(1000)
	dst.Set(999)
	e.NodesInto(ix, dst)
	assert.Equal(t, uint(4), dst.Len())
	assert.Equal(t, []uint{2, 3}, members(dst))
	allocs := testing.AllocsPerRun(100, func() { e.NodesInto(ix, dst) })
	assert.Zero(t, allocs)
}

func TestTextRoundTrip(t *testing.T) {
	for _, s := range []string{"a&(b|c)", "[x*2&y*1]", "A|B&[C|D]|E"} {
		e, err := Parse(s, Legacy())
		require.NoError(t, err)
		text, err := e.MarshalText()
		require.NoError(t, err)
		var back Expr
		require.NoError(t, back.UnmarshalText(text))
		assert.True(t, e.Equal(&back), s)
	}
	var bad Expr
	assert.Error(t, bad.UnmarshalText([]byte("a&&b")))
}

func TestBudgetErrors(t *testing.T) {
	_, err := Parse(strings.Repeat("a&", MaxLength))
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "(MaxLength)")
	_, err = Parse("a*16777217")
	require.ErrorIs(t, err, ErrBudget)
	_, err = Parse("a*16777216")
	require.NoError(t, err)
	_, err = Parse("a&&b")
	assert.NotErrorIs(t, err, ErrBudget)
}

// Slurm 22.05 fills bracketed counted terms each from its own nodes and
// chains unbracketed ones (../shared/slurm2205 vectors 3 and 47): the
// expression must say which it was written as.
func TestCountsBracketed(t *testing.T) {
	for _, tc := range []struct {
		expr   string
		legacy bool
		want   bool
	}{
		{"[A*1&B*1]", false, true},
		{"f4&[r1*2&r2*3]", false, true},
		{"A*1&B*2", true, false},
		{"gpu*4", false, false},
		{"[r1|r3]", false, false},
		{"a&b", false, false},
	} {
		var opts []Option
		if tc.legacy {
			opts = append(opts, Legacy())
		}
		e, err := Parse(tc.expr, opts...)
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.want, e.CountsBracketed(), tc.expr)
	}
}
