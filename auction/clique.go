package auction

import (
	"cmp"
	"math/bits"
	"slices"
)

// Conflict cliques. Two bids conflict when they belong to the same job or
// together overfill some node's cores or GPUs; a set of bids that
// pairwise conflict (a clique of the conflict graph) holds at most one
// chosen bid, a valid row sum x_b <= 1 that the capacity rows imply only
// for integers. Added as resources of capacity 1 they close most of the
// gap between the plain LP (or the Lagrangian over capacities, its equal)
// and the optimum on the sample windows: on J50_B10_s101 the LP falls
// from 60780.8 to 57657.5 (optimum 56942.1) with one clique per
// conflicting pair of bids, grown greedily — stronger than CBC's own
// preprocessing (58384.7). They also make the branch and bound's "still
// fits" test see conflicts at once.

// maxCliqueBids caps the bids for which the conflict graph is built: it
// takes two bits per pair of bids (about 25 MB at the cap). Larger
// windows fall back on half cliques (bids taking more than half of one
// node resource).
const maxCliqueBids = 10_000

// maxCliquesPerBid caps the cliques, as a multiple of the bids: each one
// is a priced resource, so a few are worth more than many.
const maxCliquesPerBid = 4

// bitrows is a square bit matrix, one row of words per bid.
type bitrows struct {
	words int
	bits  []uint64
}

func newBitrows(n int) bitrows {
	w := (n + 63) / 64
	return bitrows{words: w, bits: make([]uint64, n*w)}
}

func (m bitrows) row(i int32) []uint64 { return m.bits[int(i)*m.words : int(i+1)*m.words] }
func (m bitrows) has(i, j int32) bool  { return m.bits[int(i)*m.words+int(j>>6)]&(1<<(j&63)) != 0 }
func (m bitrows) set(i, j int32) {
	m.bits[int(i)*m.words+int(j>>6)] |= 1 << (j & 63)
	m.bits[int(j)*m.words+int(i>>6)] |= 1 << (i & 63)
}

// conflictGraph: bids of one job, and bids that overfill a resource
// together.
func (m *model) conflictGraph() bitrows {
	adj := newBitrows(len(m.value))
	for _, mj := range m.jobs {
		for a := mj.first; a < mj.end; a++ {
			for b := a + 1; b < mj.end; b++ {
				adj.set(a, b)
			}
		}
	}
	if m.overfillsByLevels(adj) {
		return adj
	}
	m.overfillsByResource(adj)
	return adj
}

// overfillsByResource ORs into adj every pair of bids that overfills one
// of the model's resources, resource by resource.
func (m *model) overfillsByResource(adj bitrows) {
	uses, start := m.usesByResource()
	acc := make([]uint64, adj.words)
	var sorter amountSorter
	for r, c := range m.capacity {
		us := uses[start[r]:start[r+1]]
		// Largest first: once a pair fits, every later partner fits too.
		sorter.sort(us, c)
		overfills(adj, us, c, acc)
	}
}

// usesByResource lists every use of the model's bids by resource, in bid
// order: the uses of resource r are uses[start[r]:start[r+1]].
func (m *model) usesByResource() (uses []bidUse, start []int32) {
	start = make([]int32, len(m.capacity)+1)
	for _, r := range m.useRes {
		start[r+1]++
	}
	for r := range m.capacity {
		start[r+1] += start[r]
	}
	uses = m.mem.bidUses(len(m.useRes)) // each one set below
	next := slices.Clone(start[:len(m.capacity)])
	for b := range int32(len(m.value)) {
		as := m.amt(b)
		for k, r := range m.res(b) {
			uses[next[r]] = bidUse{b, as[k]}
			next[r]++
		}
	}
	return uses, start
}

// amountSorter sorts a resource's uses by amount, largest first. A use
// is at most the resource's capacity, and nodes have few cores and GPUs,
// so most resources are sorted by counting amounts, the others by
// comparison. Which pairs overfill does not depend on the order among
// equal amounts, so either will do.
type amountSorter struct {
	count []int32
	tmp   []bidUse
}

func byAmount(x, y bidUse) int { return cmp.Compare(y.amt, x.amt) }

// countUpTo is the largest capacity sorted by counting.
const countUpTo = 256

func (s *amountSorter) sort(us []bidUse, c int32) {
	if c > countUpTo || int(c) > 4*len(us) {
		slices.SortFunc(us, byAmount)
		return
	}
	if len(s.count) < countUpTo+2 {
		s.count = make([]int32, countUpTo+2)
	}
	count := s.count[:c+2]
	clear(count)
	for _, u := range us {
		if u.amt < 1 || u.amt > c {
			slices.SortFunc(us, byAmount)
			return // not a use of the resource: sorted all the same
		}
		count[c-u.amt+1]++ // by c - amt: the largest amount first
	}
	for k := 1; k < len(count); k++ {
		count[k] += count[k-1]
	}
	s.tmp = append(s.tmp[:0], us...)
	for _, u := range s.tmp {
		us[count[c-u.amt]] = u
		count[c-u.amt]++
	}
}

// bidUse is a bid's amount of one resource.
type bidUse struct{ bid, amt int32 }

// overfills marks in adj the pairs of us (largest amount first) that
// overfill capacity c together. A bid's partners are a prefix of us (the
// amounts above c minus its own), so a resource many big bids share (the
// whole nodes of the AUCSCHED3 paper's jobs, every pair set once per node they
// share) is cheaper as rows ORed with a growing prefix set than pair by
// pair; the cheaper way is chosen per resource, the result is the same.
func overfills(adj bitrows, us []bidUse, c int32, acc []uint64) {
	pairs, lo, hi := 0, len(acc), 0
	for i, p := len(us)-1, 0; i >= 0; i-- {
		for p < len(us) && us[p].amt+us[i].amt > c {
			w := int(us[p].bid >> 6)
			lo, hi = min(lo, w), max(hi, w+1)
			p++
		}
		pairs += p
	}
	if pairs == 0 {
		return // nothing overfills this resource (and lo > hi)
	}
	if pairs <= len(us)*(hi-lo) {
		for i, x := range us {
			for _, y := range us[i+1:] {
				if x.amt+y.amt <= c {
					break
				}
				adj.set(x.bid, y.bid)
			}
		}
		return
	}
	clear(acc[lo:hi])
	for i, p := len(us)-1, 0; i >= 0; i-- {
		for p < len(us) && us[p].amt+us[i].amt > c {
			acc[us[p].bid>>6] |= 1 << (us[p].bid & 63)
			p++
		}
		row := adj.row(us[i].bid)
		for w := lo; w < hi; w++ {
			row[w] |= acc[w]
		}
		row[us[i].bid>>6] &^= 1 << (us[i].bid & 63) // no bid conflicts with itself
	}
}

// conflictCliques covers every conflicting pair of bids of different jobs
// by a clique: for each uncovered pair (bids by value) it adds, while any
// is left, the bid of best value that conflicts with all members. Only
// cliques spanning two jobs or more are returned (a job's own bids are
// row (2) already).
func (m *model) conflictCliques() [][]int32 {
	n := int32(len(m.value))
	adj := m.conflictGraph()
	covered := newBitrows(int(n)) // a job's own pairs count as covered
	for _, mj := range m.jobs {
		for a := mj.first; a < mj.end; a++ {
			for b := a + 1; b < mj.end; b++ {
				covered.set(a, b)
			}
		}
	}
	order := make([]int32, n)
	for b := range order {
		order[b] = int32(b)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(m.value[b], m.value[a]) })
	cand := make([]uint64, adj.words)
	var out [][]int32
	for _, u := range order {
		ru, cu := adj.row(u), covered.row(u)
		for w := range ru {
			for word := ru[w] &^ cu[w]; word != 0; word = ru[w] &^ cu[w] {
				if len(out) >= maxCliquesPerBid*int(n) {
					return out
				}
				v := int32(w*64 + bits.TrailingZeros64(word))
				clique := m.growClique(adj, cand, order, u, v)
				covered.setClique(clique, cand) // growClique leaves cand cleared
				out = append(out, clique)
			}
		}
	}
	return out
}

// setClique marks every pair of clique's bids in m (both ways), as set
// does pair by pair; scratch is a row's worth of words, left cleared. A
// big clique is cheaper as its members' bits ORed into each member's
// row (then its own bit cleared: no bid pairs with itself) than as its
// pairs one by one; the cheaper way is chosen per clique, the result is
// the same.
func (m bitrows) setClique(clique []int32, scratch []uint64) {
	lo, hi := m.words, 0
	for _, b := range clique {
		w := int(b >> 6)
		lo, hi = min(lo, w), max(hi, w+1)
	}
	if len(clique) <= 2*(hi-lo) {
		for i, a := range clique {
			for _, b := range clique[i+1:] {
				m.set(a, b)
			}
		}
		return
	}
	for _, b := range clique {
		scratch[b>>6] |= 1 << (b & 63)
	}
	for _, a := range clique {
		row := m.row(a)
		for w := lo; w < hi; w++ {
			row[w] |= scratch[w]
		}
	}
	for _, a := range clique {
		m.row(a)[a>>6] &^= 1 << (a & 63)
	}
	clear(scratch[lo:hi])
}

// growClique extends {u, v} greedily by the bid of best value adjacent to
// every member (of equal values, the first), picked from byValue (every
// bid, best value first, ties in bid order). The candidates only shrink
// as members join, so a bid passed over in byValue, not being one then,
// never is again: one walk of byValue finds every pick in turn, and
// leaves cand cleared.
func (m *model) growClique(adj bitrows, cand []uint64, byValue []int32, u, v int32) []int32 {
	ru, rv := adj.row(u), adj.row(v)
	for w := range cand {
		cand[w] = ru[w] & rv[w]
	}
	clique := []int32{u, v}
	for _, b := range byValue {
		if cand[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		clique = append(clique, b)
		rb := adj.row(b)
		for w := range cand {
			cand[w] &= rb[w]
		}
	}
	return clique
}

// addCliques makes each clique a resource of capacity 1 that its bids use
// once, rebuilding the use lists (from mem's second set).
func (m *model) addCliques(cliques [][]int32, mem *modelMem) {
	if len(cliques) == 0 {
		return
	}
	extra := make([][]int32, len(m.value))
	for _, c := range cliques {
		r := int32(len(m.capacity))
		m.capacity = append(m.capacity, 1)
		var jobs []int32
		for _, b := range c {
			extra[b] = append(extra[b], r)
			jobs = append(jobs, m.jobOf[b])
		}
		slices.Sort(jobs)
		m.resJobs = append(m.resJobs, slices.Compact(jobs))
	}
	uses := len(m.useRes)
	for _, e := range extra {
		uses += len(e)
	}
	start := make([]int32, 1, len(m.useStart))
	res, amt, amtF := mem.lists(1, uses)
	for b := range int32(len(m.value)) {
		res = append(res, m.res(b)...)
		amt = append(amt, m.amt(b)...)
		for _, r := range extra[b] {
			res = append(res, r)
			amt = append(amt, 1)
		}
		start = append(start, int32(len(res)))
	}
	for _, a := range amt {
		amtF = append(amtF, float64(a))
	}
	m.useStart, m.useRes, m.useAmt, m.useAmtF = start, res, amt, amtF
}
