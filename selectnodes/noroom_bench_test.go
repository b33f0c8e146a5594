package selectnodes

import (
	"fmt"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
)

// BenchmarkProbeNoRoom is a probe on a cluster of two kinds of many-core
// node under ConsRes, MetaCentrum's machine (20 nodes of 80 cores, 48 of
// 12, every node with the same site features) and the same a hundred
// times over, with every node keeping 10 cores free: the cores are many
// but spread thin. request=32cores is a one-node job asking 32 cores
// (RunNow: no node has them; TestOnly with the 80-core nodes withheld, as
// conservative backfill withholds a window's busy nodes: the 12-core
// nodes left cannot), which noRoom answers; request=8cores fits, so the
// pipeline answers it on both paths and path=noroom shows noRoom's cost
// on a probe it does not answer. path=pipeline is the same probe with
// noRoom switched off. Behind its gate, path=noroom of a probe that fits
// shows the gate's steady state: checked in the first round, then one
// probe in roomSample.
func BenchmarkProbeNoRoom(b *testing.B) {
	for _, scale := range []int{1, 100} {
		c, big := noRoomCluster(b, 20*scale, 48*scale)
		e, err := features.Parse("x86_64&nfs4")
		if err != nil {
			b.Fatal(err)
		}
		for _, rq := range []struct {
			name string
			mode Mode
			req  Request
			fits bool
		}{
			{"RunNow/request=32cores", RunNow, Request{MinNodes: 1, MinCPUsPerNode: 32, CPUs: 32, Features: e}, false},
			{"RunNow/request=8cores", RunNow, Request{MinNodes: 1, MinCPUsPerNode: 8, CPUs: 8, Features: e}, true},
			{"TestOnly/request=32cores", TestOnly, Request{MinNodes: 1, MinCPUsPerNode: 32, CPUs: 32, Features: e, ExcludeNodes: big}, false},
			{"TestOnly/request=8cores", TestOnly, Request{MinNodes: 1, MinCPUsPerNode: 8, CPUs: 8, Features: e, ExcludeNodes: big}, true},
		} {
			for _, path := range []string{"noroom", "pipeline"} {
				b.Run(fmt.Sprintf("nodes=%d/%s/path=%s", c.NodeCount(), rq.name, path), func(b *testing.B) {
					c.noPlainWalk = path == "pipeline"
					defer func() { c.noPlainWalk = false }()
					c.resetGate() // each case from the gate's first state, as on a new cluster
					into := bitset.New(uint(c.NodeCount()))
					b.ReportAllocs()
					for b.Loop() {
						if c.ProbeInto(&rq.req, rq.mode, into) != rq.fits {
							b.Fatal("wrong answer")
						}
					}
				})
			}
		}
	}
}

// noRoomCluster is wide nodes of 80 cores then narrow ones of 12, each
// running a job that leaves 10 cores free; big is the wide nodes.
func noRoomCluster(b testing.TB, wide, narrow int) (*Cluster, *bitset.BitSet) {
	b.Helper()
	n := wide + narrow
	nodes, all := make([]Node, n), make([]string, n)
	site := []string{"x86_64", "nfs4", "brno", "linux", "home_brno", "debian"}
	for i := range nodes {
		cpus, kind := 12, "zegox"
		if i < wide {
			cpus, kind = 80, "zewura"
		}
		nodes[i] = Node{Name: fmt.Sprintf("n%06d", i), CPUs: cpus, RealMemory: 500000, Weight: 1,
			Features: append([]string{"cl_" + kind}, site...)}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, WithSelector(ConsRes{}))
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	big := bitset.New(uint(n))
	for i := range nodes {
		p := &Placement{Partition: "batch", Alloc: []NodeAlloc{{Node: i, CPUs: nodes[i].CPUs - 10}}}
		if err := c.Allocate(JobID(i+1), p, t0, t0.Add(time.Hour)); err != nil {
			b.Fatal(err)
		}
		if i < wide {
			big.Set(uint(i))
		}
	}
	return c, big
}
