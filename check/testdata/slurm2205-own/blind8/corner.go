//go:build ignore

// corner.go adds gen.go's -corner mode: the corner the hand-written sets
// of the third and fourth rounds found hardest and the generator's
// whole-space draws reach only now and then. Every conf is cons_tres
// (CR_Core) on an uneven three-level topology/tree: two to four middle
// switches holding one to three leaves each (never all the same number),
// leaves of two to six nodes, weight tiers spread across leaves and
// switches, two or three CPU sizes mixed within them, NodeName lines
// sometimes out of name order, sometimes a MaxNodes partition; idle and
// under a load. Requests are node counts, CPU totals, both together,
// node ranges, --contiguous, -w, -x, -c, --ntasks-per-node, --exclusive.
//
//	go run gen.go corner.go -corner -seed 19 -prefix o -n 150 -confs 10 -out ../blind19
package main

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
)

func init() { newCornerConf = drawCorner }

// cornerShapes weighs node counts and CPU totals, the requests whose
// choice of switch and weight tier the rules still miss.
var cornerShapes = []string{"N", "N", "N", "n", "n", "n", "Nn", "Nn", "Nn", "Nrange", "Nrange",
	"contig", "contig", "w", "w", "x", "c", "tpn", "excl"}

func drawCorner(rng *rand.Rand, setPrefix string, i int, nodePrefix string) *conf {
	c := &conf{prefix: nodePrefix, name: fmt.Sprintf("%s_topo%d_ct", setPrefix, i)}
	c.file, c.topoFile = c.name+".conf", c.name+".topology"
	c.shapes = cornerShapes
	c.drawUnevenTree(rng)
	c.drawCornerLines(rng)
	c.parts = []part{{name: pick(rng, "all", "main", "debug", "batch"), nodes: c.all(), text: "Default=YES MaxTime=INFINITE"}}
	if rng.Intn(2) == 0 {
		c.parts = append(c.parts, part{name: pick(rng, "four", "small", "few", "narrow"), nodes: c.all(),
			text: fmt.Sprintf("MaxNodes=%d MaxTime=INFINITE", 2+rng.Intn(4))})
	}
	return c
}

// drawUnevenTree draws 2-4 middle switches of 1-3 leaves (not all alike)
// and leaves of 2-6 nodes, numbered in leaf order.
func (c *conf) drawUnevenTree(rng *rand.Rand) {
	var perMiddle []int
	for {
		perMiddle = perMiddle[:0]
		for range 2 + rng.Intn(3) {
			perMiddle = append(perMiddle, 1+rng.Intn(3))
		}
		if slices.Min(perMiddle) != slices.Max(perMiddle) {
			break
		}
	}
	var b strings.Builder
	idx, leafNo := 0, 0
	var groups [][]int
	for _, k := range perMiddle {
		var grp []int
		for range k {
			var leaf []int
			for range 2 + rng.Intn(5) {
				leaf = append(leaf, idx)
				idx++
			}
			c.leaves = append(c.leaves, leaf)
			leafNo++
			grp = append(grp, leafNo)
			fmt.Fprintf(&b, "SwitchName=s%d Nodes=%s\n", leafNo, c.hostlist(leaf))
		}
		groups = append(groups, grp)
	}
	c.n = idx
	for j, g := range groups {
		fmt.Fprintf(&b, "SwitchName=t%d Switches=%s\n", j+1, hostlistNum("s", g))
	}
	fmt.Fprintf(&b, "SwitchName=root Switches=%s\n", hostlistNum("t", seq(1, len(groups))))
	c.topoText = b.String()
}

// drawCornerLines gives each leaf (or each half of a split leaf) a weight
// tier and a CPU size, then writes one NodeName line per run of nodes
// alike. The lowest tier is weight 1; one or two heavier tiers follow.
func (c *conf) drawCornerLines(rng *rand.Rand) {
	weights := []int{1, pick(rng, 2, 3, 5)}
	if rng.Intn(2) == 0 {
		weights = append(weights, 10)
	}
	sizes := []int{4, 8, 12, 16, 24, 32}
	rng.Shuffle(len(sizes), func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	sizes = sizes[:2+rng.Intn(2)]
	type seg struct{ first, last, cpus, weight int }
	var segs []seg
	for _, leaf := range c.leaves {
		cuts := []int{leaf[0], leaf[len(leaf)-1] + 1}
		if len(leaf) >= 3 && rng.Intn(3) == 0 { // two kinds within one leaf
			cuts = []int{leaf[0], leaf[0] + 1 + rng.Intn(len(leaf)-1), leaf[len(leaf)-1] + 1}
		}
		for j := 0; j+1 < len(cuts); j++ {
			w := weights[0]
			if rng.Intn(5) >= 3 { // about 60 % of the nodes in the lowest tier
				w = pick(rng, weights[1:]...)
			}
			segs = append(segs, seg{cuts[j], cuts[j+1] - 1, pick(rng, sizes...), w})
		}
	}
	pool := []string{"fat", "ib", "sky", "amd", "hi", "lo", "big", "edge"}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for _, s := range segs {
		n := len(c.lines)
		if n > 0 && c.lines[n-1].cpus == s.cpus && c.lines[n-1].weight == s.weight {
			c.lines[n-1].last = s.last
			continue
		}
		feat := pool[slices.Index(sizes, s.cpus)%len(pool)]
		c.lines = append(c.lines, line{first: s.first, last: s.last, cpus: s.cpus, mem: s.cpus * 4000,
			weight: s.weight, feats: []string{feat}})
	}
	if len(c.lines) > 2 && rng.Intn(4) == 0 { // lines out of name order
		rng.Shuffle(len(c.lines), func(i, j int) { c.lines[i], c.lines[j] = c.lines[j], c.lines[i] })
	}
}
