package selectnodes

import (
	"errors"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/hostlist"
)

const fuzzConf = `
NodeName=DEFAULT CPUs=8 RealMemory=8000
NodeName=a[1-6] Feature=A,ib Weight=1
NodeName=b[1-4] Feature=A,B Weight=5
NodeName=g[1-2] Feature=gpu Gres=gpu:v100:2 Weight=10
PartitionName=p Nodes=ALL Default=YES MaxNodes=8
PartitionName=s Nodes=a[1-4] OverSubscribe=FORCE:2
`

// FuzzSelectNodes throws arbitrary requests at a loaded cluster: no panic,
// every error an *Error of a known class, every placement valid and
// allocatable.
func FuzzSelectNodes(f *testing.F) {
	f.Add(uint8(2), uint8(0), uint8(0), uint16(0), uint8(0), uint16(0), "A*1&B*2", "", "", false, uint8(0), "", uint8(0), false)
	f.Add(uint8(1), uint8(3), uint8(2), uint16(12), uint8(4), uint16(100), "[A|gpu]", "a1", "b1", true, uint8(1), "gpu:1-2", uint8(2), true)
	f.Add(uint8(3), uint8(0), uint8(0), uint16(0), uint8(0), uint16(0), "ib&(A|B)", "", "a[2-3]", false, uint8(2), "", uint8(1), false)
	f.Fuzz(func(t *testing.T, minN, maxN, desired uint8, cpus uint16, minCPU uint8, mem uint16, expr, required, excluded string,
		contiguous bool, share uint8, gres string, mode uint8, shared bool) {
		c := confCluster(t, fuzzConf, WithSelector([]Selector{Linear{}, ConsRes{}}[int(mode)%2]))
		occupy(t, c, 1, time.Hour, "a2", "b3")
		req := &Request{MinNodes: int(minN % 16), MaxNodes: int(maxN % 16), DesiredNodes: int(desired % 16), CPUs: int(cpus % 200),
			MinCPUsPerNode: int(minCPU % 16), MinMemoryPerNode: int64(mem % 10000), Contiguous: contiguous, Share: ShareRequest(share % 3)}
		if shared {
			req.Partition = "s"
		}
		if expr != "" {
			e, err := features.Parse(expr, features.Legacy())
			if err != nil {
				return
			}
			req.Features = e
		}
		var err error
		if req.Required, err = hostlist.ExpandLimit(required, 32); err != nil {
			return
		}
		if req.Excluded, err = hostlist.ExpandLimit(excluded, 32); err != nil {
			return
		}
		if req.GRES, err = ParseGRES(gres); err != nil {
			return
		}
		for _, m := range []Mode{TestOnly, RunNow, WillRun} {
			p, err := c.SelectNodes(req, m)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || ClassName(err) == "error" || e.Explanation == nil {
					t.Fatalf("mode %s: unexpected error %T %v", m, err, err)
				}
				continue
			}
			part, _ := c.Partition(c.resolvedPartition(req))
			checkPlacement(t, c, part, req, p)
			if m == RunNow {
				if err := c.Allocate(2, p, t0, t0.Add(time.Hour)); err != nil {
					t.Fatalf("RunNow placement does not allocate: %v", err)
				}
				if err := c.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				_ = c.Release(2)
			}
		}
	})
}

func (c *Cluster) resolvedPartition(req *Request) string {
	if req.Partition != "" {
		return req.Partition
	}
	return c.DefaultPartition()
}

func FuzzParseGRES(f *testing.F) {
	for _, s := range []string{"gpu:2", "gpu:v100:1-3", "gpu", "gpu:a:b", "gpu:3-1", ",,", "mps:100,gpu:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gs, err := ParseGRES(s)
		if err != nil {
			return
		}
		for _, g := range gs {
			if g.Name == "" || g.Min < 0 || g.Max < g.Min {
				t.Fatalf("%q gave %+v", s, g)
			}
		}
	})
}

// FuzzPlaceExact throws arbitrary layouts (absurd CPU and GRES counts
// included) at a loaded cluster: no panic, every error an *Error of a known
// class, every accepted layout allocatable with the counters kept exact.
func FuzzPlaceExact(f *testing.F) {
	f.Add([]byte{0, 8, 1, 8}, int64(0), int64(0), uint8(2), uint16(16), "", uint8(1))
	f.Add([]byte{10, 4}, int64(1), int64(4000), uint8(1), uint16(0), "gpu:1-2", uint8(0))
	f.Add([]byte{3, 1}, int64(9223372036854775806), int64(0), uint8(1), uint16(0), "", uint8(1))
	f.Add([]byte{2, 1, 2, 1}, int64(-1), int64(-5), uint8(2), uint16(0), "[A*1&B*1]", uint8(1))
	f.Fuzz(func(t *testing.T, layout []byte, gpus, mem int64, minN uint8, cpus uint16, extra string, sel uint8) {
		c := confCluster(t, fuzzConf, WithSelector([]Selector{Linear{}, ConsRes{}}[int(sel)%2]))
		occupy(t, c, 1, time.Hour, "a2", "b3")
		req := &Request{MinNodes: int(minN % 8), CPUs: int(cpus % 200)}
		if g, err := ParseGRES(extra); err == nil && len(g) > 0 {
			req.GRES = g
		} else if e, err := features.Parse(extra); err == nil {
			req.Features = e
		}
		var uses []NodeUse
		for k := 0; k+1 < len(layout) && k < 32; k += 2 {
			u := NodeUse{Node: int(layout[k]) % 16, CPUs: int(layout[k+1]), Memory: mem}
			if gpus != 0 {
				u.GRES = []GRES{{Name: "gpu", Type: "v100", Count: gpus}}
			}
			uses = append(uses, u)
		}
		p, err := c.PlaceExact(req, uses)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || ClassName(err) == "error" {
				t.Fatalf("unexpected error %T %v", err, err)
			}
			return
		}
		if err := c.Allocate(2, p, t0, t0.Add(time.Hour)); err != nil {
			t.Fatalf("an exact placement does not allocate: %v", err)
		}
		if err := c.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzExcludeNodes: a withheld node never appears in a placement, and a
// bitmap of the wrong length is refused with a *BitmapLengthError.
func FuzzExcludeNodes(f *testing.F) {
	f.Add(uint16(12), []byte{0, 3, 5}, uint8(2))
	f.Add(uint16(11), []byte{1}, uint8(1))
	f.Add(uint16(64), []byte{}, uint8(1))
	f.Add(uint16(0), []byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, length uint16, withheld []byte, minN uint8) {
		c := confCluster(t, fuzzConf)
		x := bitset.New(uint(length % 200))
		for _, b := range withheld {
			if uint(b) < x.Len() {
				x.Set(uint(b))
			}
		}
		req := &Request{MinNodes: int(minN % 8), ExcludeNodes: x}
		for _, m := range []Mode{TestOnly, RunNow, WillRun} {
			p, err := c.SelectNodes(req, m)
			if x.Len() != uint(c.NodeCount()) {
				var le *BitmapLengthError
				if !errors.Is(err, ErrInvalidRequest) || !errors.As(err, &le) {
					t.Fatalf("length %d: %v", x.Len(), err)
				}
				continue
			}
			if err == nil && p.NodeSet().IntersectionCardinality(x) > 0 {
				t.Fatalf("placement %s uses withheld nodes %v", p.Hostlist(), x)
			}
		}
	})
}
