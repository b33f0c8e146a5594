package federation

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDependency(t *testing.T) {
	tests := []struct {
		in   string
		want *Dependency
		pos  int // of the error, -1 for none
	}{
		{"", &Dependency{}, -1},
		{"afterok:5", &Dependency{Terms: []DepTerm{{AfterOK, 5}}}, -1},
		{"after:1:2,afterany:3", &Dependency{Terms: []DepTerm{{After, 1}, {After, 2}, {AfterAny, 3}}}, -1},
		{"afternotok:4?singleton", &Dependency{Terms: []DepTerm{{AfterNotOK, 4}, {Singleton, 0}}, Any: true}, -1},
		{"AfterOK:7", &Dependency{Terms: []DepTerm{{AfterOK, 7}}}, -1},
		{"5", &Dependency{Terms: []DepTerm{{AfterAny, 5}}}, -1},
		{"after:1+5", nil, 7},
		{"afterok", nil, 7},
		{"afterok:x", nil, 8},
		{"afterok:1:0", nil, 10},
		{"afterok:1,sometime:2", nil, 10},
		{"singleton:3", nil, 9},
		{"afterok:1?afterok:2,afterok:3", nil, 19},
		{"afterok:99999999999999999999", nil, 8},
		{strings.Repeat("a", MaxDependencyBytes+1), nil, MaxDependencyBytes},
	}
	for _, tc := range tests {
		t.Run(tc.in[:min(len(tc.in), 30)], func(t *testing.T) {
			d, err := ParseDependency(tc.in)
			if tc.pos < 0 {
				require.NoError(t, err)
				require.Equal(t, tc.want, d)
				return
			}
			var de *DependencyError
			require.ErrorAs(t, err, &de)
			require.Equal(t, tc.pos, de.Pos, de.Error())
			require.ErrorIs(t, err, ErrInvalidSpec)
		})
	}
}

// FuzzParseDependency: any input parses or fails with a positioned error
// inside the input, never panics; what parses has IDs and kinds only.
func FuzzParseDependency(f *testing.F) {
	for _, s := range []string{"", "afterok:1", "after:1:2,afterany:3", "afternotok:4?singleton", "singleton:", "x?y,z", "afterok:1::2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDependency(s)
		if err != nil {
			var de *DependencyError
			if !errors.As(err, &de) || de.Pos < 0 || de.Pos > len(s) {
				t.Fatalf("%q: error %v has no position inside the input", s, err)
			}
			return
		}
		for _, term := range d.Terms {
			if term.Kind < After || term.Kind > Singleton || (term.Kind == Singleton) != (term.Job == 0) {
				t.Fatalf("%q: bad term %+v", s, term)
			}
		}
	})
}
