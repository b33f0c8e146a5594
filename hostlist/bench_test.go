package hostlist

import (
	"fmt"
	"testing"
)

// The floor is what any implementation must pay: building the same 65,536
// names one by one with strconv and no parsing at all.
func BenchmarkExpand(b *testing.B) {
	for _, n := range []int{1024, 65536} {
		expr := fmt.Sprintf("node[00000-%05d]", n-1)
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Expand(expr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("names=65536/shape=2groups", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Expand("rack[000-255]_blade[000-255]"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCompress(b *testing.B) {
	for _, n := range []int{1024, 65536} {
		names, err := Expand(fmt.Sprintf("node[00000-%05d]", n-1))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Compress(names)
			}
		})
	}
}

func BenchmarkNamesFloor(b *testing.B) {
	b.Run("names=65536", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := make([]string, 65536)
			for i := range out {
				out[i] = fmt.Sprintf("node%05d", i)
			}
		}
	})
}
