package selectnodes

import (
	"fmt"
	"testing"
)

// BenchmarkSelectNodesCapLLN is cons_tres on a partition with
// MaxCPUsPerNode (counted per node over the partition's jobs) and LLN (an
// idle-share sort of each weight's nodes), in compat mode, idle and half
// loaded; the scale is in the sub-benchmark names.
func BenchmarkSelectNodesCapLLN(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, load := range []string{"idle", "half"} {
			c := benchCluster(b, n, ConsRes{}, WithSlurmCompat())
			part, _ := c.Partition("batch")
			part.MaxCPUsPerNode, part.LLN = 32, true
			if err := c.UpdatePartition(part); err != nil {
				b.Fatal(err)
			}
			if load == "half" {
				halfLoad(b, c)
			}
			for _, rq := range []struct {
				name string
				req  *Request
			}{{"request=1cpu", &Request{CPUs: 1}}, {"request=640cpus", &Request{CPUs: 640}}} {
				b.Run(fmt.Sprintf("nodes=%d/load=%s/%s", n, load, rq.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := c.SelectNodes(rq.req, RunNow); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
