package selectnodes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/slurmconf"
)

// hugeConf is slurmconf's benchmark configuration of n nodes: "lines" (a
// NodeName line per node), "gres-types" (a line per node, each with a GRES
// type of its own) or "ranges" (one line of ranges of at most 65,536
// nodes, as Slurm allows); a partition of every node by ALL and one by
// name.
func hugeConf(tb testing.TB, n int, shape string) *slurmconf.Config {
	var b strings.Builder
	b.WriteString("ClusterName=huge\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\n")
	var parts []string
	for lo := 1; lo <= n; lo += 65536 {
		parts = append(parts, fmt.Sprintf("%d-%d", lo, min(n, lo+65535)))
	}
	ranges := "n[" + strings.Join(parts, ",") + "]"
	switch shape {
	case "lines":
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "NodeName=n%d CPUs=64 RealMemory=256000\n", i)
		}
	case "gres-types":
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "NodeName=n%d CPUs=64 RealMemory=256000 Gres=gpu:t%d:4\n", i, i)
		}
	case "ranges":
		fmt.Fprintf(&b, "NodeName=%s CPUs=64 RealMemory=256000 Gres=gpu:4\n", ranges)
	}
	fmt.Fprintf(&b, "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE\nPartitionName=named Nodes=%s\n", ranges)
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

var hugeShapes = []struct {
	n     int
	shape string
}{{20000, "gres-types"}, {1000000, "lines"}, {1000000, "ranges"}}

// BenchmarkFromConfig builds clusters from the huge configurations (the
// parse is outside the timing: see slurmconf's BenchmarkParseConf).
func BenchmarkFromConfig(b *testing.B) {
	for _, h := range hugeShapes {
		b.Run(fmt.Sprintf("nodes=%d/shape=%s", h.n, h.shape), func(b *testing.B) {
			cfg := hugeConf(b, h.n, h.shape) // built only for the sub-benchmarks asked for
			b.ReportAllocs()
			for b.Loop() {
				c, err := FromConfig(cfg)
				if err != nil || c.NodeCount() != h.n {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExplainHuge is one explained selection (what `hpcsched
// explain` asks) on the huge configurations, its text included: with a
// config record per line there are as many node sets as nodes.
func BenchmarkExplainHuge(b *testing.B) {
	for _, h := range hugeShapes {
		b.Run(fmt.Sprintf("nodes=%d/shape=%s", h.n, h.shape), func(b *testing.B) {
			c, err := FromConfig(hugeConf(b, h.n, h.shape))
			if err != nil {
				b.Fatal(err)
			}
			req := &Request{MinNodes: 1}
			b.ReportAllocs()
			for b.Loop() {
				ex := c.Explain(req, RunNow)
				if ex.Placement == nil || len(ex.String()) == 0 {
					b.Fatalf("not placed: %s", ex.Reason)
				}
			}
		})
	}
}
