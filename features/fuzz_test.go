package features

import (
	"errors"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a&b", "a|b&c", "foo&(bar|baz)", "[rack1|rack2]", "[rack1*2&rack2*4]",
		"[(a|b)*1&c*2]", "f4&[f1|f0]", "graphics*4", "A|B&[C|D]|E", "A&B*1&C*2&D", "a&&b", "((a|b)&c)",
		"[a*2|b]", "GPU_SKU:V100,CPU_FRQ:2.30GHz", "(a)b", "a*0"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	nodes := [][]string{{"a"}, {"b", "c"}, {"a", "b", "c"}, {}, {"rack1", "f4"}, {"A", "B", "C", "D", "E"}}
	ix := IndexNodes(nodes)
	f.Fuzz(func(t *testing.T, s string, legacy bool) {
		var opts []Option
		if legacy {
			opts = append(opts, Legacy())
		}
		e, err := Parse(s, opts...)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			if se.Pos.Offset < 0 || se.Pos.Offset > len(s) || se.Pos.Line < 1 || se.Pos.Column < 1 {
				t.Fatalf("position %+v outside %q", se.Pos, s)
			}
			return
		}
		back, err := Parse(e.String(), opts...)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", e.String(), s, err)
		}
		if !e.Equal(back) {
			t.Fatalf("%q -> %q parses to a different tree", s, e.String())
		}
		got := e.Nodes(ix)
		for i, fs := range nodes {
			if got.Test(uint(i)) != e.Match(fs) {
				t.Fatalf("%q: Nodes and Match disagree on node %d", s, i)
			}
		}
		for _, c := range e.Counts() {
			if c.N < 1 || c.N > MaxCount {
				t.Fatalf("%q: count %d", s, c.N)
			}
		}
		_ = e.Validate(ix.Has)
		_ = e.PerNode()
	})
}
