package auction

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeClasses refines the classes bid by bid; the reference below is the
// way they were found before, by a hash of each node's capacity and uses,
// then a check of every node's uses against its class's first node.

// Both ways find the same classes, numbered alike, on random problems
// with copied nodes (some with one core more), on the paper's generated
// windows, and on windows whose bids lay their cores out unevenly.
func TestNodeClassesAsByHash(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 11))
	check := func(what string, p *Problem) {
		t.Helper()
		wantClass, wantReps := nodeClassesByHash(p)
		class, reps := nodeClasses(p)
		require.Equal(t, wantClass, class, what)
		require.Equal(t, wantReps, reps, what)
	}
	rounds := 300
	if testing.Short() {
		rounds = 90
	}
	for k := range rounds {
		check("random", withCopies(rng, randomProblem(rng)))
		if k%30 == 0 {
			p, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(60), Bids: 1 + rng.IntN(10), Seed: rng.Uint64(), Ranges: k%60 == 0})
			require.NoError(t, err)
			check("generated", p)
			check("uneven", unevenCopy(rng, p))
		}
	}
}

// unevenCopy is p with each use's cores changed at random (within the
// node), so that one bid gives nodes of one class different amounts.
func unevenCopy(rng *rand.Rand, p *Problem) *Problem {
	q := deepClone(p)
	for j := range q.Jobs {
		for i := range q.Jobs[j].Bids {
			for k := range q.Jobs[j].Bids[i].Uses {
				u := &q.Jobs[j].Bids[i].Uses[k]
				if c := q.Nodes[u.Node].CPUs; c > 1 && rng.IntN(3) == 0 {
					u.Cores = 1 + rng.IntN(min(c, 3))
				}
			}
		}
	}
	return q
}

// A bid that gives the nodes of one class three amounts splits it in
// three, and a later bid using them alike splits nothing.
func TestNodeClassesUnevenBid(t *testing.T) {
	p := &Problem{Alpha: 1, Nodes: []Node{{4, 0}, {4, 0}, {4, 0}, {4, 0}, {4, 0}, {4, 0}}, Jobs: []Job{
		{ID: 1, Priority: 2, Bids: []Bid{{Uses: []Use{{0, 1, 0}, {1, 2, 0}, {2, 1, 0}, {3, 3, 0}, {4, 2, 0}}}}},
		{ID: 2, Priority: 3, Bids: []Bid{{Uses: []Use{{0, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}, {5, 1, 0}}}}},
	}}
	class, reps := nodeClasses(p)
	assert.Equal(t, []int32{0, 1, 0, 2, 1, 3}, class)
	assert.Equal(t, []int{0, 1, 3, 5}, reps)
	wantClass, wantReps := nodeClassesByHash(p)
	assert.Equal(t, wantClass, class)
	assert.Equal(t, wantReps, reps)
}

// nodeClassesByHash numbers the classes of the used nodes (nodes of the same
// capacity and the same uses), in the order of their first nodes:
// class[n] is node n's class (-1 when no bid uses it) and reps[c] the
// first node of class c.
//
// Nodes are grouped by a hash of their capacity and uses, and each
// node's uses are then checked against its group's first node: a node
// whose uses differ (the hashes collided) gets a class of its own, so a
// class never holds two nodes whose rows differ.
func nodeClassesByHash(p *Problem) (class []int32, reps []int) {
	n := len(p.Nodes)
	hash := make([]uint64, n)
	count := make([]int32, n)
	for n, nd := range p.Nodes {
		hash[n] = mix(uint64(nd.CPUs)<<32 ^ uint64(nd.GPUs))
	}
	bid := uint64(0)
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			bid++
			for _, u := range p.Jobs[j].Bids[i].Uses {
				hash[u.Node] = mix(hash[u.Node] ^ bid<<40 ^ uint64(u.Cores)<<20 ^ uint64(u.GPUs))
				count[u.Node]++
			}
		}
	}
	class = make([]int32, n)
	first := make(map[uint64]int32, 64)
	for n := range class {
		class[n] = -1
		if count[n] == 0 {
			continue
		}
		c, ok := first[hash[n]]
		if !ok || p.Nodes[reps[c]] != p.Nodes[n] || count[reps[c]] != count[n] {
			c = int32(len(reps))
			reps = append(reps, n)
			if !ok {
				first[hash[n]] = c
			}
		}
		class[n] = c
	}
	splitMismatches(p, class, &reps)
	return class, reps
}

// splitMismatches gives a class of its own to each node whose uses are
// not its class's first node's: every use of node n must be matched by
// the same bid's use of the first node, with the same cores and GPUs (the
// counts being equal, the uses are then the same). Classes stay in the
// order of their first nodes.
func splitMismatches(p *Problem, class []int32, reps *[]int) {
	stamp := make([]uint32, len(p.Nodes))
	amt := make([]Use, len(p.Nodes))
	var odd []int
	bid := uint32(0)
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			bid++
			uses := p.Jobs[j].Bids[i].Uses
			for _, u := range uses {
				stamp[u.Node], amt[u.Node] = bid, u
			}
			for _, u := range uses {
				r := (*reps)[class[u.Node]]
				if r != u.Node && (stamp[r] != bid || amt[r].Cores != u.Cores || amt[r].GPUs != u.GPUs) {
					odd = append(odd, u.Node)
				}
			}
		}
	}
	if len(odd) == 0 {
		return
	}
	for _, n := range odd {
		if (*reps)[class[n]] != n { // not split yet
			class[n] = int32(len(*reps))
			*reps = append(*reps, n)
		}
	}
	renumber(class, reps)
}

// renumber orders the classes by their first nodes.
func renumber(class []int32, reps *[]int) {
	order := make([]int32, len(*reps))
	for c := range order {
		order[c] = int32(c)
	}
	slices.SortFunc(order, func(a, b int32) int { return (*reps)[a] - (*reps)[b] })
	to := make([]int32, len(order))
	sorted := make([]int, len(order))
	for c, old := range order {
		to[old], sorted[c] = int32(c), (*reps)[old]
	}
	for n, c := range class {
		if c >= 0 {
			class[n] = to[c]
		}
	}
	*reps = sorted
}
