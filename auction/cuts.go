package auction

import (
	"cmp"
	"slices"
)

// Cover cuts on the resource rows. A resource r (a node's cores or GPUs)
// is a knapsack whose items are jobs, each taking at most one of its bids
// (row (2)). For a set C of jobs and a threshold w_k per job with
// sum w_k > cap(r), not every job of C can take a bid that uses at least
// w_k of r: at most |C|-1 of them do (a GUB cover). Jobs outside C whose
// bids use at least max w_k join the row too (the extended cover: any
// |C| of the row's jobs would then ask more than cap(r)). Each cut is a
// valid row sum x_b <= |C|-1 over those bids, kept as a model resource of
// capacity |C|-1 that its bids use once, as the conflict cliques are: the
// Lagrangian, the local search and the LP then see it like any resource.

// coverCut is one cut: its bids (sorted) and right-hand side.
type coverCut struct {
	bids []int32
	rhs  int32
}

// cutViolation: a cut must be violated by more than this to be kept.
const cutViolation = 1e-4

// jobItem is a job's part of one resource's knapsack: its bids' uses of
// the resource, and the threshold and LP mass chosen for the cover.
type jobItem struct {
	job   int32
	uses  []bidUse
	w     int32   // threshold
	y     float64 // LP mass of the job's bids using at least w
	inCut bool
}

type bidUse struct{ bid, amt int32 }

// mass is the LP mass of it's bids using at least w of the resource.
func (it *jobItem) mass(x []float64, w int32) float64 {
	y := 0.0
	for _, u := range it.uses {
		if u.amt >= w {
			y += x[u.bid]
		}
	}
	return y
}

// coverCuts separates GUB cover cuts violated by x (per model bid) on
// every resource of capacity 2 or more.
func (m *model) coverCuts(x []float64) []coverCut {
	byRes := make([][]bidUse, len(m.capacity))
	for b := range int32(len(m.value)) {
		as := m.amt(b)
		for k, r := range m.res(b) {
			byRes[r] = append(byRes[r], bidUse{b, as[k]})
		}
	}
	var out []coverCut
	for r, us := range byRes {
		if m.capacity[r] < 2 || len(us) < 2 {
			continue
		}
		if c, ok := m.coverOn(int32(r), us, x); ok {
			out = append(out, c)
		}
	}
	return out
}

// coverOn looks for one violated cover on resource r: each job with LP
// mass on r picks the threshold of least lost mass per unit, jobs join by
// that ratio until they overfill r, then the cover is made minimal and
// its thresholds lowered while it still overfills r.
func (m *model) coverOn(r int32, us []bidUse, x []float64) (coverCut, bool) {
	items := m.jobItems(us)
	var cand []*jobItem
	for k := range items {
		it := &items[k]
		best := -1.0
		for _, u := range it.uses {
			y := it.mass(x, u.amt)
			if y <= 1e-9 {
				continue
			}
			if ratio := (1 - y) / float64(u.amt); best < 0 || ratio < best || ratio == best && u.amt > it.w {
				best, it.w, it.y = ratio, u.amt, y
			}
		}
		if best >= 0 {
			cand = append(cand, it)
		}
	}
	ratio := func(it *jobItem) float64 { return (1 - it.y) / float64(it.w) }
	slices.SortStableFunc(cand, func(a, b *jobItem) int { return cmp.Compare(ratio(a), ratio(b)) })
	capacity := int64(m.capacity[r])
	var sum int64
	var cover []*jobItem
	for _, it := range cand {
		if sum > capacity {
			break
		}
		cover = append(cover, it)
		sum += int64(it.w)
	}
	if sum <= capacity {
		return coverCut{}, false
	}
	cover, sum = minimalCover(cover, sum, capacity)
	lowerThresholds(cover, sum, capacity, x)
	lost := 0.0
	for _, it := range cover {
		lost += 1 - it.y
		it.inCut = true
	}
	if lost >= 1-cutViolation {
		return coverCut{}, false
	}
	return extendCover(items, cover), true
}

// jobItems groups resource r's uses by job.
func (m *model) jobItems(us []bidUse) []jobItem {
	var items []jobItem
	at := map[int32]int{}
	for _, u := range us {
		k := m.jobOf[u.bid]
		i, ok := at[k]
		if !ok {
			i = len(items)
			at[k] = i
			items = append(items, jobItem{job: k})
		}
		items[i].uses = append(items[i].uses, u)
	}
	return items
}

// minimalCover drops the jobs of most lost mass while the rest still
// overfill the capacity.
func minimalCover(cover []*jobItem, sum, capacity int64) ([]*jobItem, int64) {
	slices.SortStableFunc(cover, func(a, b *jobItem) int { return cmp.Compare(b.y, a.y) })
	for i := len(cover) - 1; i >= 0; i-- {
		if w := int64(cover[i].w); sum-w > capacity {
			sum -= w
			cover = slices.Delete(cover, i, i+1)
		}
	}
	return cover, sum
}

// lowerThresholds lowers each job's threshold to the least use that
// keeps the cover overfilling the capacity: its bids that use less join
// the row, which only adds LP mass.
func lowerThresholds(cover []*jobItem, sum, capacity int64, x []float64) {
	for _, it := range cover {
		for _, u := range it.uses {
			if u.amt < it.w && sum-int64(it.w-u.amt) > capacity {
				sum -= int64(it.w - u.amt)
				it.w = u.amt
			}
		}
		it.y = it.mass(x, it.w)
	}
}

// extendCover makes the cut's row: the cover's bids at their thresholds
// and every other job's bids that use at least the largest threshold.
func extendCover(items []jobItem, cover []*jobItem) coverCut {
	var top int32
	for _, it := range cover {
		top = max(top, it.w)
	}
	c := coverCut{rhs: int32(len(cover) - 1)}
	for _, it := range items {
		w := top
		if it.inCut {
			w = it.w
		}
		for _, u := range it.uses {
			if u.amt >= w {
				c.bids = append(c.bids, u.bid)
			}
		}
	}
	slices.Sort(c.bids)
	return c
}

// addCuts makes each cut a resource of capacity rhs that its bids use
// once (as addCliques), skipping cuts the model holds already; it
// returns how many it added.
func (m *model) addCuts(cuts []coverCut, seen map[string]bool) int {
	var rows [][]int32
	var caps []int32
	for _, c := range cuts {
		key := cutKey(c)
		if seen[key] {
			continue
		}
		seen[key] = true
		rows = append(rows, c.bids)
		caps = append(caps, c.rhs)
	}
	m.addRows(rows, caps)
	return len(rows)
}

func cutKey(c coverCut) string {
	b := make([]byte, 0, 4*len(c.bids)+4)
	for _, v := range append([]int32{c.rhs}, c.bids...) {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}
