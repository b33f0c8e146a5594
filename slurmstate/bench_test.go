package slurmstate

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// benchNodes is the emulator's first `scontrol show node -o` line repeated
// for n nodes under new names: the size a 100,000-node cluster's output has.
func benchNodes(tb testing.TB, n int) string {
	data, err := os.ReadFile("testdata/emu/nodes.txt")
	if err != nil {
		tb.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	var b strings.Builder
	for i := range n {
		name := fmt.Sprintf("n%06d", i)
		b.WriteString(strings.ReplaceAll(line, "f01", name))
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkParseNodes reads a whole cluster's node lines, the first step of
// every --from-slurm answer.
func BenchmarkParseNodes(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			text := benchNodes(b, n)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				nodes, err := ParseNodes(strings.NewReader(text), "nodes.txt", Limits{})
				if err != nil || len(nodes) != n {
					b.Fatal(len(nodes), err)
				}
			}
		})
	}
}
