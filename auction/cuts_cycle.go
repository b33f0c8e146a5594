package auction

import "math"

// Odd-cycle cuts on the conflict graph (clique.go): bids that pairwise
// conflict around a cycle of odd length k hold at most (k-1)/2 chosen
// bids. A cycle is violated when sum over its edges of 1-x_u-x_v is below
// 1; the shortest such odd cycle through each bid of the LP's support is
// found by Dijkstra on the graph's bipartite double cover (u on side 0 or
// 1, every edge changing side): a path from u's side 0 to its side 1 is
// an odd closed walk.

// cycleSupport: bids with at least this LP value take part.
const cycleSupport = 1e-6

// oddCycleCuts separates violated odd cycles among the bids x supports,
// at most one per starting bid, each a simple cycle.
func (m *model) oddCycleCuts(adj bitrows, x []float64) []coverCut {
	var sup []int32
	for b, v := range x {
		if v > cycleSupport {
			sup = append(sup, int32(b))
		}
	}
	n := len(sup)
	w := make([][]float64, n) // edge weights among the support, -1: none
	for i, u := range sup {
		w[i] = make([]float64, n)
		for j, v := range sup {
			w[i][j] = -1
			if i != j && adj.has(u, v) {
				w[i][j] = max(0, 1-x[u]-x[v])
			}
		}
	}
	var out []coverCut
	for s := range n {
		if cyc := shortestOddCycle(w, s); cyc != nil {
			c := coverCut{rhs: int32((len(cyc) - 1) / 2)}
			for _, i := range cyc {
				c.bids = append(c.bids, sup[i])
			}
			out = append(out, c)
		}
	}
	return out
}

// shortestOddCycle returns the support positions of a simple odd cycle
// through s of weight below 1-cutViolation, or nil.
func shortestOddCycle(w [][]float64, s int) []int {
	n := len(w)
	dist := make([]float64, 2*n)
	prev := make([]int, 2*n)
	done := make([]bool, 2*n)
	for v := range dist {
		dist[v], prev[v] = math.Inf(1), -1
	}
	dist[s] = 0 // vertex v on side k is k*n+v
	for {
		u := -1
		for v := range dist {
			if !done[v] && !math.IsInf(dist[v], 1) && (u < 0 || dist[v] < dist[u]) {
				u = v
			}
		}
		if u < 0 || dist[u] >= 1-cutViolation {
			return nil
		}
		if u == n+s {
			break
		}
		done[u] = true
		side, a := u/n, u%n
		for b, wt := range w[a] {
			if wt < 0 {
				continue
			}
			v := (1-side)*n + b
			if d := dist[u] + wt; d < dist[v] {
				dist[v], prev[v] = d, u
			}
		}
	}
	var cyc []int
	seen := map[int]bool{}
	for v := prev[n+s]; v >= 0; v = prev[v] {
		if seen[v%n] {
			return nil // not simple: a shorter cycle holds it, found from another start
		}
		seen[v%n] = true
		cyc = append(cyc, v%n)
	}
	if len(cyc)%2 == 0 || len(cyc) < 3 {
		return nil
	}
	return cyc
}
