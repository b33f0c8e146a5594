package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/features"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countTerms turns the counted terms of req into the solver's form.
func countTermsOf(req *Request) []countTerm {
	var counts []countTerm
	for _, ct := range req.Features.Counts() {
		counts = append(counts, countTerm{name: ct.String(), n: ct.N, match: ct.Term.Match})
	}
	return counts
}

// solveTestOnly builds and solves req's counted-terms problem with no load,
// returning the problem for inspection.
func solveTestOnly(t testing.TB, c *Cluster, req *Request) (*countProblem, bool) {
	t.Helper()
	job, err := c.Resolve(req)
	require.NoError(t, err)
	sets, err := c.BuildNodeSets(job)
	require.NoError(t, err)
	n, err := c.NodeCounts(job)
	require.NoError(t, err)
	counts := countTermsOf(req)
	sig, candAll := c.signatures(sets, counts)
	pr := c.countProblem(job, sets, sig, counts, candAll, n, c.none())
	return pr, pr.solve()
}

// heteroConf is the repro: 100 nodes with CPU counts from 1 to
// 100, features f0 and f1 on some.
func heteroConf(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "NodeName=h%d CPUs=%d Feature=f%d\n", i, 1+i%100, i%3)
	}
	b.WriteString("PartitionName=p Nodes=ALL Default=YES\n")
	return b.String()
}

// Issue 11: with heterogeneous CPU counts and a CPU total that cannot be
// met, the solver spent its whole 2^18-step budget (3.5 s for
// `-C '[f0*1&f1*1]' -n 4760` on a 100-node conf). The bounds decide it
// now, before any search.
func TestCountedTermsUnreachableCPUTotalNeedsNoSearch(t *testing.T) {
	c := confCluster(t, heteroConf(100))
	req := &Request{CPUs: 5051, Features: mustExpr(t, "[f0*1&f1*1]")}
	pr, ok := solveTestOnly(t, c, req)
	assert.False(t, ok)
	assert.Zero(t, pr.steps, "decided by the CPU bound")
	_, err := c.SelectNodes(req, RunNow)
	require.ErrorIs(t, err, ErrNodeConfig)
	// 5050 CPUs exist in all: exactly that total is met
	req.CPUs = 5050
	pr, ok = solveTestOnly(t, c, req)
	assert.True(t, ok)
	assert.Less(t, pr.steps, 100)
	p, err := c.SelectNodes(req, RunNow)
	require.NoError(t, err)
	assert.Equal(t, 5050, p.TotalCPUs)
}

// Counted terms where the cheapest cover cannot reach the CPU total but a
// cover with more CPUs can: the second search finds it.
func TestCountedTermsTradeCheapNodesForCPUs(t *testing.T) {
	c := confCluster(t, `
NodeName=cheap[1-2] CPUs=1 Feature=a Weight=1
NodeName=big1 CPUs=32 Feature=a Weight=50
NodeName=b[1-2] CPUs=1 Feature=b Weight=1
PartitionName=p Nodes=ALL Default=YES
`)
	p, err := c.SelectNodes(&Request{MaxNodes: 2, CPUs: 33, Features: mustExpr(t, "[a*1&b*1]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "big1,b1", p.Hostlist())
	p, err = c.SelectNodes(&Request{MaxNodes: 2, CPUs: 2, Features: mustExpr(t, "[a*1&b*1]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "cheap1,b1", p.Hostlist(), "the cheap cover when it suffices")
}

var countFeatures = []string{"a", "b", "c", "d"}

func randomCountExpr(r *rand.Rand) string {
	var terms []string
	for _, f := range countFeatures[:1+r.IntN(len(countFeatures))] {
		term := f
		if r.IntN(4) == 0 {
			term = "(" + f + "&" + countFeatures[r.IntN(len(countFeatures))] + ")"
		}
		terms = append(terms, fmt.Sprintf("%s*%d", term, 1+r.IntN(3)))
	}
	return "[" + strings.Join(terms, "&") + "]"
}

// The solver agrees with brute force on small clusters with heterogeneous
// CPUs, overlapping features and up to four counted terms, with and
// without CPU totals and node limits.
func TestCountedTermsAgreeWithBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	for iter := range iterations(1000, 5000) {
		nodes := make([]Node, 2+r.IntN(9))
		part := Partition{Name: "p", Default: true}
		for i := range nodes {
			var fs []string
			for _, f := range countFeatures {
				if r.IntN(3) == 0 {
					fs = append(fs, f)
				}
			}
			// more CPUs usually cost more, so the cheapest cover is often
			// not the one reaching a CPU total
			cpus := []int{1, 2, 3, 5, 8}[r.IntN(5)]
			nodes[i] = Node{Name: fmt.Sprintf("n%d", i), CPUs: cpus, Weight: int64(cpus/3 + r.IntN(2)), Features: fs}
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
		c, err := New(nodes, []Partition{part}, WithSelector([]Selector{Linear{}, ConsRes{}}[iter%2]))
		require.NoError(t, err)
		expr, err := features.Parse(randomCountExpr(r))
		require.NoError(t, err)
		req := &Request{Features: expr, MinNodes: r.IntN(3)}
		if r.IntN(3) > 0 {
			req.CPUs = r.IntN(30)
		}
		if r.IntN(2) == 0 {
			req.MaxNodes = max(req.MinNodes, 1) + r.IntN(4)
		}
		want := feasible(nodes, part, req, func(int) bool { return true })
		_, err = c.SelectNodes(req, TestOnly)
		require.Equal(t, want, err == nil, "iter %d nodes %+v req %+v %s: %v", iter, nodes, *req, expr, err)
	}
}
