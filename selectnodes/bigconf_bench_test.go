package selectnodes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/internal/hugeconf"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// hugeConf parses hugeconf's configuration of n nodes in the given shape.
func hugeConf(tb testing.TB, n int, shape string) *slurmconf.Config {
	cfg, err := slurmconf.Parse(strings.NewReader(hugeconf.Text(n, shape)))
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

var hugeShapes = []struct {
	n     int
	shape string
}{{20000, "gres-types"}, {1000000, "lines"}, {1000000, "interleaved"}, {1000000, "ranges"}}

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
