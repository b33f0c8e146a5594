package selectnodes

import (
	"fmt"
	"math"
	"slices"
)

type gresKey struct{ name, typ string }

// gresTable holds every node's GRES capacities sparsely: node i's are the
// slots off[i] to off[i+1], one per distinct name and type it has, in key
// order. Its size is the number of GRES entries in the configuration, not
// nodes times distinct GRES, so a configuration where every node has a
// GRES of its own stays small. The load keeps one counter per slot.
type gresTable struct {
	keys  []gresKey
	keyIx map[gresKey]int
	off   []int   // node -> first slot; len nodes+1
	key   []int32 // slot -> key
	cap   []int64 // slot -> capacity
}

func buildGres(nodes []node) (gresTable, error) {
	slots := 0 // at most; sized once, as a million nodes' slots regrown cost 50 MB
	for i := range nodes {
		slots += len(nodes[i].GRES)
	}
	t := gresTable{keyIx: map[gresKey]int{}, off: make([]int, len(nodes)+1), key: make([]int32, 0, slots),
		cap: make([]int64, 0, slots)}
	for i := range nodes {
		lo := len(t.key)
		for _, g := range nodes[i].GRES {
			k := gresKey{g.Name, g.Type}
			key, ok := t.keyIx[k]
			if !ok {
				key = len(t.keys)
				t.keyIx[k] = key
				t.keys = append(t.keys, k)
			}
			if s := slices.Index(t.key[lo:], int32(key)); s >= 0 {
				if g.Count > math.MaxInt64-t.cap[lo+s] {
					return t, fmt.Errorf("selectnodes: node %s: GRES %s%s totals more than %d", nodes[i].Name, g.Name, typeSuffix(g.Type), int64(math.MaxInt64))
				}
				t.cap[lo+s] += g.Count
				continue
			}
			t.key = append(t.key, int32(key))
			t.cap = append(t.cap, g.Count)
		}
		t.sortSlots(lo)
		t.off[i+1] = len(t.key)
	}
	return t, nil
}

// sortSlots orders the slots from lo on by key (a node has few).
func (t *gresTable) sortSlots(lo int) {
	for a := lo + 1; a < len(t.key); a++ {
		for b := a; b > lo && t.key[b] < t.key[b-1]; b-- {
			t.key[b], t.key[b-1] = t.key[b-1], t.key[b]
			t.cap[b], t.cap[b-1] = t.cap[b-1], t.cap[b]
		}
	}
}

// slot is node i's slot for key, or -1.
func (t *gresTable) slot(i, key int) int {
	for s := t.off[i]; s < t.off[i+1]; s++ {
		if int(t.key[s]) == key {
			return s
		}
	}
	return -1
}

// has reports whether key is one of need's keys (which are ascending).
func (need *gresNeed) has(key int32) bool {
	_, ok := slices.BinarySearch(need.keys, int(key))
	return ok
}

// capacity is node i's units of need.
func (t *gresTable) capacity(i int, need *gresNeed) int64 {
	var have int64
	for s := t.off[i]; s < t.off[i+1]; s++ {
		if need.has(t.key[s]) {
			have += t.cap[s] // one node's sum cannot overflow: buildGres checked
		}
	}
	return have
}

// FreeGRES returns the units of GRES name (of type typ, or of every type
// when typ is "") not in use on node i.
func (c *Cluster) FreeGRES(i int, name, typ string) int64 {
	c.mustBeMade("FreeGRES")
	var free int64
	for s := c.gres.off[i]; s < c.gres.off[i+1]; s++ {
		if g := c.gres.keys[c.gres.key[s]]; g.name == name && (typ == "" || g.typ == typ) {
			free += c.gres.cap[s] - c.use.gres[s]
		}
	}
	return free
}

// freeGRES is how many units of need are free on node i.
func (v View) freeGRES(i int, need *gresNeed) int64 {
	t := &v.c.gres
	var free int64
	for s := t.off[i]; s < t.off[i+1]; s++ {
		if need.has(t.key[s]) {
			free += t.cap[s] - v.u.gres[s]
		}
	}
	return free
}

// gresFits reports whether node i has every GRES job needs at its minimum.
func (v View) gresFits(i int, job *Job) bool {
	for g := range job.gres {
		if v.freeGRES(i, &job.gres[g]) < job.gres[g].min {
			return false
		}
	}
	return true
}

// takeGRES builds node i's GRES allocation: each need's Max if free, else
// what is free (at least its Min, which Filter checked), types in key
// order.
//
// The entries go into slab, shared by the nodes of one placement (one
// allocation per placement instead of two per node, which showed in the
// backfill planner's profile); a's slices are capped, so appending to
// them never writes into another node's entries.
func (v View) takeGRES(i int, job *Job, a *NodeAlloc, slab *gresSlab) {
	t := &v.c.gres
	from := len(slab.allocs)
	for g := range job.gres {
		need := &job.gres[g]
		want := need.max
		for s := t.off[i]; s < t.off[i+1] && want > 0; s++ {
			if !need.has(t.key[s]) {
				continue
			}
			take := min(t.cap[s]-v.u.gres[s], want)
			if take <= 0 {
				continue
			}
			want -= take
			key := int(t.key[s])
			gk := t.keys[key]
			slab.allocs = append(slab.allocs, GRESAlloc{Name: gk.name, Type: gk.typ, Count: take, key: int32(key), slot: int32(s)})
		}
	}
	if to := len(slab.allocs); to > from {
		a.GRES = slab.allocs[from:to:to]
	}
}

// gresSlab holds the GRES entries of one placement's nodes.
type gresSlab struct {
	allocs []GRESAlloc
}

func newGRESSlab(nodes int, job *Job) *gresSlab {
	n := nodes * len(job.gres) // one slot per need and node, the usual case; more grows
	return &gresSlab{allocs: make([]GRESAlloc, 0, n)}
}
