package topology

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// comb is a chain of spine switches c0 > c1 > ... each with one leaf of
// one node hanging off it: the deepest tree for its size.
func comb(leaves int) ([]string, []SwitchSpec) {
	names := nodeNames(leaves)
	var specs []SwitchSpec
	for i := range leaves {
		specs = append(specs, SwitchSpec{Name: fmt.Sprintf("l%d", i), Nodes: names[i : i+1]})
		kids := []string{fmt.Sprintf("l%d", i)}
		if i+1 < leaves {
			kids = append(kids, fmt.Sprintf("c%d", i+1))
		}
		specs = append(specs, SwitchSpec{Name: fmt.Sprintf("c%d", i), Switches: kids})
	}
	return names, specs
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 11: a 20,000-leaf comb tree took 1.7 GB (every switch held the
// list of its leaves and a bitmap of its span). Memory is now proportional
// to the input.
func TestCombTree20000LeavesMemory(t *testing.T) {
	names, specs := comb(20_000)
	var tr *Tree
	var err error
	bytes := allocated(func() { tr, err = New(names, specs) })
	require.NoError(t, err)
	assert.Less(t, bytes, uint64(40<<20), "New allocated %d bytes", bytes)

	root, _ := tr.Switch("c0")
	assert.Equal(t, 20_000, tr.MaxLevel)
	assert.Equal(t, []int{root}, tr.Roots)
	assert.Len(t, tr.Switches[root].Leaves, 20_000)
	assert.Equal(t, uint(20_000), tr.Nodes(root).Count())
	deep, _ := tr.Switch("c19998")
	assert.Equal(t, "[19998 19999]", fmt.Sprint(bitsOf(tr.Nodes(deep))))

	s, ok := tr.LowestCommonSwitch(set(20_000, 19_998, 19_999))
	require.True(t, ok)
	assert.Equal(t, "c19998", tr.Switches[s].Name)
	lvl, ok := tr.LowestCommonLevel(set(20_000, 0, 19_999))
	require.True(t, ok)
	assert.Equal(t, 20_000, lvl)

	avail := bitset.New(20_000).SetAll()
	got, err := tr.Fit(avail, Request{Nodes: 3, Required: set(20_000, 10_000)})
	require.NoError(t, err)
	assert.Equal(t, []int{10_000, 10_001, 10_002}, got, "c10000 is the lowest switch holding node 10000 and two more")
}

func bitsOf(b *bitset.BitSet) []int {
	var out []int
	for i, ok := b.NextSet(0); ok; i, ok = b.NextSet(i + 1) {
		out = append(out, int(i))
	}
	return out
}

// shuffledTree is a random forest whose leaves own scattered nodes, with
// uneven depths: the case where node order and tree order differ.
func shuffledTree(r *rand.Rand) (*Tree, [][]int) {
	n := 1 + r.IntN(150)
	names := nodeNames(n)
	perm := r.Perm(n)
	var specs []SwitchSpec
	var pool []string
	var members [][]int // per spec: the nodes below it
	for i := 0; i < n; {
		end := min(n, i+1+r.IntN(5))
		var ns []string
		var ix []int
		for _, p := range perm[i:end] {
			if r.IntN(8) > 0 { // some nodes stay under no switch
				ns = append(ns, names[p])
				ix = append(ix, p)
			}
		}
		specs = append(specs, SwitchSpec{Name: fmt.Sprintf("leaf%d", len(specs)), Nodes: ns})
		members = append(members, ix)
		pool = append(pool, specs[len(specs)-1].Name)
		i = end
	}
	index := map[string]int{}
	for i, s := range specs {
		index[s.Name] = i
	}
	for len(pool) > 1 && r.IntN(10) > 0 {
		k := 1 + r.IntN(min(len(pool), 4))
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		name := fmt.Sprintf("up%d", len(specs))
		var ix []int
		for _, c := range pool[:k] {
			ix = append(ix, members[index[c]]...)
		}
		specs = append(specs, SwitchSpec{Name: name, Switches: slices.Clone(pool[:k]), Pos: position.Position{Line: len(specs) + 1}})
		members = append(members, ix)
		index[name] = len(specs) - 1
		pool = append(pool[k:], name)
	}
	tr, err := New(names, specs)
	if err != nil {
		panic(err)
	}
	return tr, members
}

// Nodes, Leaves and LowestCommonSwitch agree with brute force over the
// specs on trees whose node order differs from tree order.
func TestTreeAgreesWithBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 400 {
		tr, members := shuffledTree(r)
		n := tr.NodeCount()
		for s := range tr.Switches {
			want := slices.Clone(members[s])
			slices.Sort(want)
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(bitsOf(tr.Nodes(s))), "switch %s", tr.Switches[s].Name)
			for _, l := range tr.Switches[s].Leaves {
				require.True(t, tr.below(l, s))
				require.Empty(t, tr.Switches[l].Children)
			}
		}
		for range 10 {
			b := bitset.New(uint(n))
			for range 1 + r.IntN(4) {
				b.Set(uint(r.IntN(n)))
			}
			got, ok := tr.LowestCommonSwitch(b)
			want, wantOK := bruteLCS(tr, members, b)
			require.Equal(t, wantOK, ok, "nodes %v", bitsOf(b))
			if ok {
				require.Equal(t, tr.Switches[want].Name, tr.Switches[got].Name, "nodes %v", bitsOf(b))
			}
		}
	}
}

// bruteLCS is the lowest-level switch whose members include every node of b.
func bruteLCS(tr *Tree, members [][]int, b *bitset.BitSet) (int, bool) {
	best := -1
	for s := range tr.Switches {
		all := true
		for _, i := range bitsOf(b) {
			all = all && slices.Contains(members[s], i)
		}
		if all && (best < 0 || tr.Switches[s].Level < tr.Switches[best].Level) {
			best = s
		}
	}
	return best, best >= 0
}
