package auction

import (
	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// bidShare is what bid generation reads once for all the jobs of one
// group: jobs of the same room on every node and the same eligible
// nodes have the same runs of each nodeset at each GPU count, so only
// their stretches (their cores and node counts) are their own. A window
// of the planner's has a few groups (one per kind of request), one of
// GenerateWindow's a single one.
type bidShare struct {
	load   Load
	tree   *topology.Tree
	sets   map[*bitset.BitSet][]nodeset // nodesets by span (nil: every node)
	groups map[bidGroup]*groupRuns
	uses   *useArena // where the bids' uses come from
}

// bidGroup names a group: jobs without Room (their room is the free
// cores) of one Eligible and one Span bitmap, or jobs of one alike (one
// room table) and those bitmaps, taking whole nodes or not. Bitmaps are
// told apart by identity, so jobs whose bitmaps were made apart never
// share.
type bidGroup struct {
	alike          int32 // -1: no Room
	eligible, span *bitset.BitSet
	whole          bool
}

// groupRuns is one group's room on each node and its runs, by GPU
// count and nodeset, as they are asked.
type groupRuns struct {
	room []int
	sets int
	byG  map[int]*setRuns
}

type setRuns struct {
	runs  [][][]int
	rooms [][]int // per nodeset and run: the group's room on it in all
	done  []bool
}

func newBidShare(load Load, tree *topology.Tree, uses *useArena) *bidShare {
	return &bidShare{load: load, tree: tree, sets: map[*bitset.BitSet][]nodeset{}, groups: map[bidGroup]*groupRuns{}, uses: uses}
}

// setsOf is the nodesets of a job's span, found once for all its jobs.
func (s *bidShare) setsOf(span *bitset.BitSet) []nodeset {
	sets, ok := s.sets[span]
	if !ok {
		sets = nodesets(s.tree, s.load, span)
		s.sets[span] = sets
	}
	return sets
}

// of is job's group: its own when it shares with no other (a Room of its
// own).
func (s *bidShare) of(job *WindowJob) *groupRuns {
	key := bidGroup{alike: -1, eligible: job.Eligible, span: job.Span}
	switch {
	case job.Room != nil && job.alike == 0:
		return s.newGroup(job)
	case job.Room != nil:
		key.alike, key.whole = job.alike, job.Whole
	}
	g := s.groups[key]
	if g == nil {
		g = s.newGroup(job)
		s.groups[key] = g
	}
	return g
}

// runs is eligibleRuns of nodeset k (its nodes) at g GPUs, for every job
// of the group: read once. With them it gives the room on each run in
// all, more than any stretch of the run has.
func (gr *groupRuns) runs(job *WindowJob, k int, nodes []int, load Load, g int) ([][]int, []int) {
	sr := gr.byG[g]
	if sr == nil {
		sr = &setRuns{runs: make([][][]int, gr.sets), rooms: make([][]int, gr.sets), done: make([]bool, gr.sets)}
		gr.byG[g] = sr
	}
	if !sr.done[k] {
		sr.runs[k], sr.rooms[k] = eligibleRuns(job, nodes, load, gr.room, g)
		sr.done[k] = true
	}
	return sr.runs[k], sr.rooms[k]
}

func (s *bidShare) newGroup(job *WindowJob) *groupRuns {
	return &groupRuns{room: job.rooms(s.load), sets: len(s.setsOf(job.Span)), byG: map[int]*setRuns{}}
}
