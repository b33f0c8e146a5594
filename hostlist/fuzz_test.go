package hostlist

import (
	"errors"
	"strings"
	"testing"
)

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"rack[0-1]_blade[2,3]", "tux[001-010]", "tux[1-10:2]", "a[0-9999]b[0-9999]",
		"n1,,n2", "tux[1-3", "x]", "[1-2][3-4]", "n[1234567890123456789]", "tux[0-65535]",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx[0-1023][0-1023]", "n[1][1][1][1][1][1]", "a[0-1]b[8-10]c[09-11]"} {
		f.Add(s)
	}
	const limit, byteLimit = 5000, 1 << 16
	f.Fuzz(func(t *testing.T, expr string) {
		names, err := ExpandBudget(expr, Budget{Hosts: limit, Bytes: byteLimit})
		n, cerr := Count(expr)
		if err != nil {
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("error is %T, want *Error", err)
			}
			if he.Pos.Offset < 0 || he.Pos.Offset > len(expr) {
				t.Fatalf("offset %d outside %q", he.Pos.Offset, expr)
			}
			if he.Pos.Line < 1 || he.Pos.Column < 1 {
				t.Fatalf("position %v names no line and column", he.Pos)
			}
			if cerr == nil && n <= limit && !strings.Contains(he.Msg, "byte budget") {
				t.Fatalf("Expand failed (%v) but Count says %d", err, n)
			}
			return
		}
		if len(names) > limit {
			t.Fatalf("%d names beyond the limit %d", len(names), limit)
		}
		if b := len(strings.Join(names, "")); b > byteLimit {
			t.Fatalf("%d bytes of names beyond the budget %d", b, byteLimit)
		}
		if cerr != nil || n != len(names) {
			t.Fatalf("Count = %d, %v; Expand gave %d names", n, cerr, len(names))
		}
		// whatever Expand accepts, Compress writes in a form that expands back,
		// as long as the names carry no separators of their own.
		back, err := ExpandLimit(Compress(names), limit)
		if err != nil {
			t.Fatalf("Compress(%q) does not parse: %v", names, err)
		}
		if len(back) != len(names) {
			t.Fatalf("round trip changed %d names into %d", len(names), len(back))
		}
		for i := range back {
			if back[i] != names[i] {
				t.Fatalf("round trip: %q became %q", names[i], back[i])
			}
		}
	})
}
