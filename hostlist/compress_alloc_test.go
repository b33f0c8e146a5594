package hostlist

import (
	"runtime"
	"strconv"
	"testing"
)

// A hostlist of many runs (a node set scattered over a cluster) costs at
// most four times its length to write (doubling), not the five a Builder
// growing by quarters costs.
func TestCompressFuncAllocatesLinearly(t *testing.T) {
	names := make([]string, 200000)
	for i := range names {
		names[i] = "cn" + strconv.Itoa(3*i) // every third node: a run per name
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := CompressFunc(len(names), func(i int) string { return names[i] })
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if allocated > uint64(4*len(out)) {
		t.Fatalf("%d bytes allocated for a %d-byte hostlist", allocated, len(out))
	}
	back, err := ExpandLimit(out, len(names))
	if err != nil || len(back) != len(names) || back[len(back)-1] != names[len(names)-1] {
		t.Fatalf("round trip: %d names, %v", len(back), err)
	}
}
