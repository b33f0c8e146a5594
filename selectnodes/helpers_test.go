package selectnodes

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// uniform builds n nodes "n0".."n(n-1)" with the given CPUs and one
// partition "p" holding them all.
func uniform(t testing.TB, n, cpus int, opts ...Option) *Cluster {
	t.Helper()
	nodes := make([]Node, n)
	names := make([]string, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%d", i), CPUs: cpus, RealMemory: 1000, Weight: 1}
		names[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: names, Default: true}}, opts...)
	require.NoError(t, err)
	return c
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// occupy allocates the named nodes whole to a job ending after d.
func occupy(t testing.TB, c *Cluster, id JobID, d time.Duration, names ...string) {
	t.Helper()
	p, err := c.SelectNodes(&Request{Required: names, MinNodes: len(names)}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(id, p, t0, t0.Add(d)))
}

func names(prefix string, idx ...int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func span(prefix string, lo, hi int) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// longTests reports whether the long forms of the property tests run
// (HPCSCHED_LONG_TESTS set); the short forms always run.
func longTests() bool { return os.Getenv("HPCSCHED_LONG_TESTS") != "" }

// iterations is short normally and long under HPCSCHED_LONG_TESTS.
func iterations(short, long int) int {
	if longTests() {
		return long
	}
	return short
}
