package slurmconf

import (
	"fmt"
	"strings"
	"testing"
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
