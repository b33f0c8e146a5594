package topology

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
)

// benchTree is a 3-level tree over n nodes: leaves of 32 nodes, middle
// switches of 32 leaves, one root.
func benchTree(tb testing.TB, n int) *Tree {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%06d", i)
	}
	var specs []SwitchSpec
	var leaves []string
	for i := 0; i < n; i += 32 {
		name := fmt.Sprintf("leaf%d", len(leaves))
		specs = append(specs, SwitchSpec{Name: name, Nodes: names[i:min(n, i+32)]})
		leaves = append(leaves, name)
	}
	var mids []string
	for i := 0; i < len(leaves); i += 32 {
		name := fmt.Sprintf("mid%d", len(mids))
		specs = append(specs, SwitchSpec{Name: name, Switches: leaves[i:min(len(leaves), i+32)]})
		mids = append(mids, name)
	}
	specs = append(specs, SwitchSpec{Name: "root", Switches: mids})
	tr, err := New(names, specs)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// halfAvail marks about half the nodes available, in runs, seeded.
func halfAvail(n int) *bitset.BitSet {
	r := rand.New(rand.NewPCG(3, 4))
	b := bitset.New(uint(n))
	for i := 0; i < n; {
		run := 1 + r.IntN(48)
		if r.IntN(2) == 0 {
			for k := i; k < min(n, i+run); k++ {
				b.Set(uint(k))
			}
		}
		i += run
	}
	return b
}

func BenchmarkFit(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		tr := benchTree(b, n)
		avail := halfAvail(n)
		for _, want := range []int{1, 64, 1024} {
			b.Run(fmt.Sprintf("nodes=%d/load=half/request=%dnodes", n, want), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tr.Fit(avail, Request{Nodes: want}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkLowestCommonLevel(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		tr := benchTree(b, n)
		nodes := bitset.New(uint(n))
		for i := n / 3; i < n/3+1024; i++ {
			nodes.Set(uint(i))
		}
		b.Run(fmt.Sprintf("nodes=%d/job=1024nodes", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := tr.LowestCommonLevel(nodes); !ok {
					b.Fatal("no common switch")
				}
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/spread", n), func(b *testing.B) {
			for b.Loop() {
				_ = Spread(nodes)
			}
		})
	}
}

// BenchmarkBitmapFloor is one AND plus popcount over two node bitmaps of
// the tree's size.
func BenchmarkBitmapFloor(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		x, y := halfAvail(n), bitset.New(uint(n)).SetAll()
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			total := 0
			for b.Loop() {
				xw, yw := x.Words(), y.Words()
				for k := range xw {
					total += bits.OnesCount64(xw[k] & yw[k])
				}
			}
			_ = total
		})
	}
}

// BenchmarkNewComb builds the comb tree (a spine of switches, one
// leaf hanging off each): 1.7 GB when every switch kept its own leaf list
// and span bitmap.
func BenchmarkNewComb(b *testing.B) {
	for _, leaves := range []int{2000, 20000} {
		names, specs := comb(leaves)
		b.Run(fmt.Sprintf("leaves=%d", leaves), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(names, specs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewFlat builds the common shape at scale: a million nodes
// under 1,024 leaves of 1,024 and one root (an allocation per node when
// every lookup built its owner's name).
func BenchmarkNewFlat(b *testing.B) {
	names := make([]string, 1<<20)
	for i := range names {
		names[i] = fmt.Sprintf("n%07d", i)
	}
	var specs []SwitchSpec
	var leaves []string
	for i := 0; i < len(names); i += 1024 {
		s := SwitchSpec{Name: fmt.Sprintf("l%d", i/1024), Nodes: names[i : i+1024]}
		specs = append(specs, s)
		leaves = append(leaves, s.Name)
	}
	specs = append(specs, SwitchSpec{Name: "root", Switches: leaves})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(names, specs); err != nil {
			b.Fatal(err)
		}
	}
}
