package topology

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// randomTree builds up to 12 nodes under random leaves and a random
// hierarchy above them (sometimes several roots).
func randomTree(r *rand.Rand) *Tree {
	n := 2 + r.IntN(11)
	names := nodeNames(n)
	var specs []SwitchSpec
	var leaves []string
	for i := 0; i < n; {
		k := 1 + r.IntN(4)
		end := min(n, i+k)
		name := fmt.Sprintf("leaf%d", len(leaves))
		specs = append(specs, SwitchSpec{Name: name, Nodes: names[i:end]})
		leaves = append(leaves, name)
		i = end
	}
	level := leaves
	for up := 0; len(level) > 1 && r.IntN(4) > 0; up++ {
		var next []string
		for i := 0; i < len(level); {
			k := 1 + r.IntN(3)
			end := min(len(level), i+k)
			name := fmt.Sprintf("up%d_%d", up, len(next))
			specs = append(specs, SwitchSpec{Name: name, Switches: level[i:end]})
			next = append(next, name)
			i = end
		}
		level = next
	}
	tr, err := New(names, specs)
	if err != nil {
		panic(err)
	}
	return tr
}

// randomAvail marks about three nodes in four of n available.
func randomAvail(r *rand.Rand, n int) *bitset.BitSet {
	avail := bitset.New(uint(n))
	for i := 0; i < n; i++ {
		if r.IntN(4) > 0 {
			avail.Set(uint(i))
		}
	}
	return avail
}

// Fit's result lies within the available nodes, has the requested size,
// and its lowest common level is the least any feasible choice has.
func TestFitIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for iter := 0; iter < 3000; iter++ {
		tr := randomTree(r)
		n := tr.NodeCount()
		avail := randomAvail(r, n)
		want := 1 + r.IntN(n)
		got, err := tr.Fit(avail, Request{Nodes: want})
		best := -1
		single := false
		for mask := 1; mask < 1<<n; mask++ {
			if bits.OnesCount(uint(mask)) != want {
				continue
			}
			b := bitset.New(uint(n))
			ok := true
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					ok = ok && avail.Test(uint(i))
					b.Set(uint(i))
				}
			}
			if !ok {
				continue
			}
			single = true
			if lvl, inOne := tr.LowestCommonLevel(b); inOne && (best < 0 || lvl < best) {
				best = lvl
			}
		}
		desc := fmt.Sprintf("iter %d: %d nodes, want %d, avail %v", iter, n, want, avail)
		if best < 0 {
			require.Error(t, err, desc)
			if single {
				require.ErrorIs(t, err, ErrNoSingleTree, desc)
			}
			continue
		}
		require.NoError(t, err, desc)
		require.Len(t, got, want, desc)
		b := bitset.New(uint(n))
		for _, i := range got {
			require.True(t, avail.Test(uint(i)), desc)
			b.Set(uint(i))
		}
		require.Equal(t, uint(want), b.Count(), "no duplicates: %s", desc)
		lvl, ok := tr.LowestCommonLevel(b)
		require.True(t, ok, desc)
		require.Equal(t, best, lvl, desc)
	}
}

// FitWith reusing one Scratch across many calls (trees, requests and
// sizes changing from call to call) chooses exactly what Fit does with
// fresh memory, and so does a call made after a failure.
func TestFitWithReusedScratchMatchesFit(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	var sc Scratch
	for iter := 0; iter < 3000; iter++ {
		tr := randomTree(r)
		n := tr.NodeCount()
		avail := randomAvail(r, n)
		req := Request{Nodes: 1 + r.IntN(n)}
		if r.IntN(2) == 0 {
			cpus := make([]int, n)
			for i := range cpus {
				cpus[i] = 1 + r.IntN(4)
			}
			req.CPUs, req.CPUsOf = r.IntN(3*n), func(i int) int { return cpus[i] }
		}
		if r.IntN(2) == 0 {
			req.Weight = func(i int) int64 { return int64(i % 3) }
		}
		if r.IntN(5) == 0 {
			req.Required = bitset.New(uint(n))
			if i, ok := avail.NextSet(uint(r.IntN(n))); ok {
				req.Required.Set(i)
			}
		}
		want, wantErr := tr.Fit(avail, req)
		got, err := tr.FitWith(&sc, avail, req)
		require.Equal(t, wantErr, err, "iter %d", iter)
		require.Equal(t, want, got, "iter %d", iter)
	}
}
