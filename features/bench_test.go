package features

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
)

// benchIndex gives each of n nodes 5 of 50 features, drawn with a fixed seed.
func benchIndex(n int) *Index {
	r := rand.New(rand.NewPCG(7, 11))
	ix := NewIndex(n)
	for i := 0; i < n; i++ {
		for k := 0; k < 5; k++ {
			ix.Add(i, fmt.Sprintf("f%d", r.IntN(50)))
		}
	}
	return ix
}

func BenchmarkNodes(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		ix := benchIndex(n)
		for _, expr := range []struct{ name, s string }{
			{"terms=5/chain", "f1|f2|f3&f4|f5"},
			{"terms=5/paren", "f1&(f2|f3|f4)&f5"},
			{"terms=5/bracket", "f1|f2&[f3|f4|f5]"},
		} {
			e, err := Parse(expr.s)
			if err != nil {
				b.Fatal(err)
			}
			dst := bitset.New(uint(n))
			b.Run(fmt.Sprintf("nodes=%d/%s", n, expr.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					e.NodesInto(ix, dst)
				}
			})
		}
	}
}

// BenchmarkBitmapFloor is one AND of two node bitmaps of the same size: the
// memory-bound floor a 5-term expression (4 combining passes and a copy)
// cannot beat by more than about 5x.
func BenchmarkBitmapFloor(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		ix := benchIndex(n)
		x, y := ix.Nodes("f1").Clone(), ix.Nodes("f2")
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.InPlaceIntersection(y)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("[(knl&snc4&flat)*4&haswell*1]"); err != nil {
			b.Fatal(err)
		}
	}
}
