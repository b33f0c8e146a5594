package selectnodes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomKind is one node configuration of a random slurm.conf.
type randomKind struct {
	cpus     int
	mem      int64
	weight   int64
	features []string
	gres     []GRES
}

// line is the kind's values as a NodeName line writes them.
func (k randomKind) line() string {
	s := fmt.Sprintf("CPUs=%d RealMemory=%d Weight=%d", k.cpus, k.mem, k.weight)
	if len(k.features) > 0 {
		s += " Feature=" + strings.Join(k.features, ",")
	}
	if len(k.gres) > 0 {
		var g []string
		for _, r := range k.gres {
			g = append(g, fmt.Sprintf("%s:%s:%d", r.Name, r.Type, r.Count))
		}
		s += " Gres=" + strings.Join(g, ",")
	}
	return s
}

// randomConf is a slurm.conf of n nodes of k kinds in random order, written
// as single lines and short ranges, and the same nodes as Nodes for New.
func randomConf(rng *rand.Rand, n, k int) (string, []Node) {
	kinds := make([]randomKind, k)
	feats := []string{"a", "b", "c", "ib"}
	for i := range kinds {
		kd := randomKind{cpus: 4 * (1 + i), mem: int64(1000 * (1 + rng.IntN(4))), weight: int64(1 + rng.IntN(3))}
		for _, f := range feats {
			if rng.IntN(2) == 0 {
				kd.features = append(kd.features, f)
			}
		}
		if rng.IntN(3) == 0 {
			kd.gres = []GRES{{Name: "gpu", Type: []string{"a100", "v100"}[rng.IntN(2)], Count: int64(1 + rng.IntN(4))}}
		}
		kinds[i] = kd
	}
	var b strings.Builder
	b.WriteString("SelectType=select/cons_tres\nGresTypes=gpu\n")
	var nodes []Node
	for len(nodes) < n {
		kd := kinds[rng.IntN(k)]
		count := 1
		if rng.IntN(3) == 0 {
			count = min(1+rng.IntN(5), n-len(nodes))
		}
		lo := len(nodes)
		if count == 1 {
			fmt.Fprintf(&b, "NodeName=n%d %s\n", lo, kd.line())
		} else {
			fmt.Fprintf(&b, "NodeName=n[%d-%d] %s\n", lo, lo+count-1, kd.line())
		}
		for i := lo; i < lo+count; i++ {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), CPUs: kd.cpus, RealMemory: kd.mem, Weight: kd.weight,
				Features: kd.features, GRES: kd.gres})
		}
	}
	b.WriteString("PartitionName=all Nodes=ALL Default=YES\n")
	return b.String(), nodes
}

// groupedRequest is a request on randomConf's nodes.
func groupedRequest(t testing.TB, rng *rand.Rand) *Request {
	req := &Request{MinNodes: 1 + rng.IntN(4)}
	if rng.IntN(2) == 0 {
		req.MaxNodes = req.MinNodes + rng.IntN(3)
	}
	if rng.IntN(3) == 0 {
		req.CPUs = req.MinNodes * (1 + rng.IntN(12))
	}
	if rng.IntN(3) == 0 {
		req.Features = mustExpr(t, []string{"a", "b&c", "a|ib", "[a*2&b*1]"}[rng.IntN(4)])
	}
	if rng.IntN(4) == 0 {
		req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}
	}
	if rng.IntN(4) == 0 {
		req.MinMemoryPerNode = int64(1000 * (1 + rng.IntN(4)))
	}
	return req
}

// A cluster built from a slurm.conf whose alike lines are grouped
// (wherever they stand) answers as New does given the same nodes in file
// order, request after request, with the answers' placements kept: node
// order, configurations and records agree.
func TestGroupedBuildAnswersAsNodes(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	for round := range rounds {
		text, nodes := randomConf(rng, 20+rng.IntN(150), 2+rng.IntN(6))
		cfg, err := slurmconf.Parse(strings.NewReader(text))
		require.NoError(t, err)
		grouped, err := FromConfig(cfg)
		require.NoError(t, err, "round %d", round)
		plain, err := New(nodes, []Partition{{Name: "all", Nodes: nodeNames(nodes), Default: true}}, WithSelector(ConsRes{}))
		require.NoError(t, err)
		require.Equal(t, plain.NodeCount(), grouped.NodeCount())
		for i := range nodes {
			require.Equal(t, nodes[i].Name, grouped.Node(i).Name, "node %d keeps its place in the file", i)
		}
		require.Equal(t, len(plain.records), len(grouped.records), "one record per configuration\n%s", text)
		compatAnswersAsUngrouped(t, rng, text)
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for q := range 25 {
			req := groupedRequest(t, rng)
			want, werr := plain.SelectNodes(req, RunNow)
			got, gerr := grouped.SelectNodes(req, RunNow)
			require.Equal(t, werr == nil, gerr == nil, "round %d request %d %+v: %v / %v", round, q, req, werr, gerr)
			if werr != nil {
				assert.Equal(t, ClassName(werr), ClassName(gerr))
				continue
			}
			require.Equal(t, want.Names, got.Names, "round %d request %d %+v", round, q, req)
			require.NoError(t, plain.Allocate(JobID(q+1), want, at, at.Add(time.Hour)))
			require.NoError(t, grouped.Allocate(JobID(q+1), got, at, at.Add(time.Hour)))
		}
	}
}

func nodeNames(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].Name
	}
	return out
}

// Lines configured alike are one record wherever they stand in the
// default mode, and a record each in file order with WithSlurmCompat;
// either way the nodes keep the file's order (compat: name order).
func TestFromConfigGroupsAlikeLines(t *testing.T) {
	text := "NodeName=g1 CPUs=64 Feature=gpu Weight=10\n" +
		"NodeName=c[1-2] CPUs=128 Feature=cpu\n" +
		"NodeName=g2 CPUs=64 Feature=gpu Weight=10\n" +
		"NodeName=c3 CPUs=128 Feature=cpu\n" +
		"NodeName=g3 CPUs=64 Feature=gpu Weight=10\n" +
		"PartitionName=all Nodes=ALL Default=YES\n"
	cfg, err := slurmconf.Parse(strings.NewReader(text))
	require.NoError(t, err)
	c, err := FromConfig(cfg)
	require.NoError(t, err)
	var order []string
	for i := range c.NodeCount() {
		order = append(order, c.Node(i).Name)
	}
	assert.Equal(t, []string{"g1", "c1", "c2", "g2", "c3", "g3"}, order)
	require.Len(t, c.records, 2)
	assert.Equal(t, []int{1, 2, 4}, c.records[0].nodes, "weight 1 first: the cpu lines")
	assert.Equal(t, []int{0, 3, 5}, c.records[1].nodes)
	p, _ := c.Partition("all")
	assert.Equal(t, order, p.Nodes, "Nodes=ALL lists the file's order")

	compat, err := FromConfig(cfg, WithSlurmCompat())
	require.NoError(t, err)
	require.Len(t, compat.records, 5, "a node set per line")
	var lines [][]string
	for r := range compat.records {
		rec := &compat.records[r]
		var ns []string
		for _, i := range rec.nodes {
			ns = append(ns, compat.Node(i).Name)
		}
		lines = append(lines, ns)
	}
	assert.Equal(t, [][]string{{"c1", "c2"}, {"c3"}, {"g1"}, {"g2"}, {"g3"}}, lines,
		"weight first, then the lines in file order")
}

// FromConfig still reports what Validate finds, with positions, now that it
// asks Validate only when the build fails.
func TestFromConfigPositionedErrors(t *testing.T) {
	for text, want := range map[string]string{
		"NodeName=n1 CPUs=2\nNodeName=m1 CPUs=4\nNodeName=n[2,1] CPUs=2\n":         "3:1: node n1 is already defined at 1:1",
		"NodeName=n1 CPUs=2\nPartitionName=p Nodes=n[1-2]\n":                       "2:1: partition p: node n2 is not defined",
		"NodeName=n1 CPUs=2\nPartitionName=p Nodes=n1\nPartitionName=p Nodes=n1\n": "3:1: partition p is already defined at 2:1",
	} {
		cfg, err := slurmconf.Parse(strings.NewReader(text))
		require.NoError(t, err)
		_, err = FromConfig(cfg)
		require.Error(t, err, text)
		assert.Equal(t, want, err.Error(), text)
		var pe *slurmconf.Error
		assert.True(t, errors.As(err, &pe), text)
	}
}

// compatAnswersAsUngrouped checks that WithSlurmCompat answers the same on
// text as on text whose lines carry a key of their own (so that slurmconf
// groups and folds none of them): compat keeps a record per line of the
// file, grouped or not.
func compatAnswersAsUngrouped(t *testing.T, rng *rand.Rand, text string) {
	var b strings.Builder
	for k, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString(line)
		if strings.HasPrefix(line, "NodeName=") {
			fmt.Fprintf(&b, " Unmodelled=%d", k)
		}
		b.WriteString("\n")
	}
	build := func(text string) *Cluster {
		cfg, err := slurmconf.Parse(strings.NewReader(text))
		require.NoError(t, err)
		c, err := FromConfig(cfg, WithSlurmCompat())
		require.NoError(t, err)
		return c
	}
	grouped, apart := build(text), build(b.String())
	require.Equal(t, len(apart.records), len(grouped.records))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for q := range 15 {
		req := groupedRequest(t, rng)
		want, werr := apart.SelectNodes(req, RunNow)
		got, gerr := grouped.SelectNodes(req, RunNow)
		require.Equal(t, werr == nil, gerr == nil, "compat request %d %+v: %v / %v", q, req, werr, gerr)
		if werr != nil {
			continue
		}
		require.Equal(t, want.Names, got.Names, "compat request %d %+v", q, req)
		require.NoError(t, apart.Allocate(JobID(q+1), want, at, at.Add(time.Hour)))
		require.NoError(t, grouped.Allocate(JobID(q+1), got, at, at.Add(time.Hour)))
	}
}
