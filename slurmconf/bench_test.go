package slurmconf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/internal/hugeconf"
)

// bigConf writes a slurm.conf of nodes nodes in lines of 100, with typed GRES
// and key:value features as real sites use, and a partition per 1,000 nodes.
func bigConf(nodes int) string {
	var b strings.Builder
	b.WriteString("ClusterName=big\nSelectType=select/cons_tres\nNodeName=DEFAULT Sockets=2 CoresPerSocket=32 RealMemory=512000\n")
	for i := 0; i < nodes; i += 100 {
		fmt.Fprintf(&b, "NodeName=n[%06d-%06d] Feature=rack%d,CPU_GEN:SPR,ib Gres=gpu:h100:4 Weight=%d\n", i, i+99, i/1000, 1+i%7)
	}
	for i := 0; i < nodes; i += 1000 {
		fmt.Fprintf(&b, "PartitionName=p%d Nodes=n[%06d-%06d] MaxTime=1-00:00:00 OverSubscribe=FORCE:2\n", i/1000, i, i+999)
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		text := bigConf(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c, err := Parse(strings.NewReader(text))
				if err != nil || c.NodeCount() != n {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDefaultMerge is the two long NodeName=DEFAULT lines (7 s
// when merging searched the earlier line for every key of the later one)
// followed by node lines that inherit them.
func BenchmarkDefaultMerge(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10} {
		text := defaultLine("NodeName", size, 4, "a") + defaultLine("NodeName", size, 8, "b") +
			"NodeName=n1\nNodeName=n2\n"
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := Parse(strings.NewReader(text)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseConf parses the huge configurations that used to take
// seconds to minutes: a million nodes as lines or as ranges, and 20,000
// nodes each with a GRES type of its own.
func BenchmarkParseConf(b *testing.B) {
	for _, c := range []struct {
		n     int
		shape string
	}{{20000, "gres-types"}, {1000000, "lines"}, {1000000, "interleaved"}, {1000000, "ranges"}} {
		b.Run(fmt.Sprintf("nodes=%d/shape=%s", c.n, c.shape), func(b *testing.B) {
			text := hugeconf.Text(c.n, c.shape)
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				cfg, err := Parse(strings.NewReader(text))
				if err != nil || cfg.NodeCount() != c.n {
					b.Fatal(err)
				}
			}
		})
	}
}
