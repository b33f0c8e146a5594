package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An EASY pass starts in order every job that fits before its head, as
// Schedule does, whatever BackfillDepth: the depth bounds the jobs it
// plans around the head, not the in-order starts. The pass counted every
// start against the depth, so with --depth D a replay under EASY started
// at most D jobs a pass where FCFS alone started them all (DOST-ASTI on
// BNL's nsls2 site, 3,000 jobs: FCFS's mean wait 8,473 s, FCFS+EASY's
// 58,765 s at depth 1 and 29,357 s at depth 10).
func TestEASYDepthBoundsNoInOrderStart(t *testing.T) {
	c := cluster(t, "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
	s := New(c, WithBackfillDepth(1))
	var ids []JobID
	for range 4 {
		ids = append(ids, submit(t, s, nodes(1, time.Hour), at(0)))
	}
	st := NewEASY(s).Backfill(at(1))
	var got []JobID
	for _, x := range st {
		got = append(got, x.Job)
	}
	assert.Equal(t, ids, got, "every job fits now: all start, as Schedule starts them")
}

// A job of another partition behind an EASY head starts in the pass that
// finds the head, whatever BackfillDepth, as Schedule starts it (the
// head's partition is locked, not the other's nodes). With a depth the
// walk stopped at the head, so on a site of several partitions EASY at a
// small depth left such jobs waiting where FCFS alone ran them at once
// (DOST-ASTI's debug jobs on BNL's nsls2 site behind a head of the
// default partition).
func TestEASYDepthBoundsNoOtherPartitionsStart(t *testing.T) {
	c := cluster(t, "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=debug Nodes=n[2-3]\n")
	s := New(c, WithBackfillDepth(1))
	first := submit(t, s, nodes(2, time.Hour), at(0))
	head := submit(t, s, nodes(2, time.Hour), at(0)) // main is full: the head
	spec := nodes(1, 2*time.Hour)
	spec.Request.Partition = "debug"
	other := submit(t, s, spec, at(0))
	st := NewEASY(s).Backfill(at(1))
	var got []JobID
	for _, x := range st {
		got = append(got, x.Job)
	}
	assert.Equal(t, []JobID{first, other}, got, "Schedule starts %d and %d; %d waits", first, other, head)
}

// The sites of the depth table: four nodes, the default partition main
// on n[0-1] and others beside it.
const (
	twoParts     = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=debug Nodes=n[2-3]\n"
	threeParts   = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=debug Nodes=n2\nPartitionName=gpu Nodes=n3\n"
	overlapParts = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=wide Nodes=n[1-3]\n"
	downParts    = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=maint Nodes=n2 State=DOWN\nPartitionName=debug Nodes=n3\n"
	limitParts   = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=debug Nodes=n[2-3] MaxTime=30\n"
	nestedParts  = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=n[0-1] Default=YES\nPartitionName=sub Nodes=n1\nPartitionName=debug Nodes=n[2-3]\n"
	everyParts   = "NodeName=n[0-3] CPUs=4\nPartitionName=main Nodes=ALL Default=YES\nPartitionName=other Nodes=ALL\n"
)

// depthJob is a job of the depth table: its partition ("" for the
// default), node count and time limit in minutes.
type depthJob struct {
	part         string
	nodes, limit int
}

// An EASY pass at a small BackfillDepth starts, past the depth, the jobs
// of partitions no job of which was left waiting, as Schedule's pass
// does, within the head's plan; the jobs of a partition once locked (by
// the head, or a later job left waiting for resources) wait. A job held
// by its partition's limits or naming a down partition locks nothing. On
// nodes shared with a locked partition an in-order start keeps off them,
// as Schedule withholds them, and a partition whose nodes all are locked
// ones' starts nothing in order. Every job is submitted at minute 0 and the
// pass runs at minute 1: the first job takes main, the second is the head.
// The rows at an unlimited depth passed before too: they pin that nothing
// changes there.
func TestEASYDepthTable(t *testing.T) {
	main2 := depthJob{"", 2, 60}
	cases := []struct {
		name  string
		conf  string
		depth int
		jobs  []depthJob
		want  []int // the jobs started, by index
	}{
		{"two/depth 1", twoParts, 1, []depthJob{main2, main2, {"debug", 1, 120}}, []int{0, 2}},
		{"two/depth 2", twoParts, 2, []depthJob{main2, main2, {"", 1, 60}, {"debug", 1, 120}}, []int{0, 3}},
		{"two/unlimited", twoParts, 0, []depthJob{main2, main2, {"", 1, 60}, {"debug", 1, 120}}, []int{0, 3}},
		{"two/depth 1, debug locked by a busy job", twoParts, 1,
			[]depthJob{main2, main2, {"debug", 1, 60}, {"debug", 2, 60}, {"debug", 1, 60}}, []int{0, 2}},
		{"two/unlimited, debug backfilled", twoParts, 0,
			[]depthJob{main2, main2, {"debug", 1, 60}, {"debug", 2, 60}, {"debug", 1, 60}}, []int{0, 2, 4}},
		{"three/depth 1", threeParts, 1,
			[]depthJob{main2, main2, {"debug", 1, 60}, {"debug", 1, 60}, {"debug", 1, 60}, {"gpu", 1, 60}}, []int{0, 2, 5}},
		{"three/depth 2", threeParts, 2,
			[]depthJob{main2, main2, {"debug", 1, 60}, {"debug", 1, 60}, {"debug", 1, 60}, {"gpu", 1, 60}}, []int{0, 2, 5}},
		{"three/unlimited", threeParts, 0,
			[]depthJob{main2, main2, {"debug", 1, 60}, {"debug", 1, 60}, {"debug", 1, 60}, {"gpu", 1, 60}}, []int{0, 2, 5}},
		{"overlap/depth 1", overlapParts, 1, []depthJob{{"", 1, 60}, main2, {"wide", 1, 30}}, []int{0, 2}},
		{"overlap/depth 1, locked nodes withheld", overlapParts, 1,
			[]depthJob{{"", 1, 60}, main2, {"wide", 3, 30}, {"wide", 2, 30}}, []int{0, 3}},
		{"overlap/unlimited", overlapParts, 0, []depthJob{{"", 1, 60}, main2, {"wide", 3, 30}}, []int{0, 2}},
		{"nested/depth 1", nestedParts, 1, []depthJob{{"", 1, 60}, main2, {"sub", 1, 30}, {"debug", 1, 60}}, []int{0, 3}},
		{"nested/unlimited", nestedParts, 0, []depthJob{{"", 1, 60}, main2, {"sub", 1, 30}, {"debug", 1, 60}}, []int{0, 2, 3}},
		{"every node/depth 1", everyParts, 1, []depthJob{main2, {"", 4, 60}, {"other", 1, 30}}, []int{0}},
		{"every node/unlimited", everyParts, 0, []depthJob{main2, {"", 4, 60}, {"other", 1, 30}}, []int{0, 2}},
		{"down partition/depth 1", downParts, 1, []depthJob{main2, main2, {"maint", 1, 60}, {"debug", 1, 60}}, []int{0, 3}},
		{"partition limit/depth 1", limitParts, 1, []depthJob{main2, main2, {"debug", 1, 60}, {"debug", 1, 20}}, []int{0, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(cluster(t, tc.conf), WithBackfillDepth(tc.depth))
			alone := New(cluster(t, tc.conf)) // Schedule's pass, for the rows at a depth
			var ids []JobID
			for _, dj := range tc.jobs {
				spec := nodes(dj.nodes, time.Duration(dj.limit)*time.Minute)
				spec.Request.Partition = dj.part
				ids = append(ids, submit(t, s, spec, at(0)))
				submit(t, alone, spec, at(0))
			}
			var want []JobID
			for _, k := range tc.want {
				want = append(want, ids[k])
			}
			assert.Equal(t, want, NewEASY(s).BackfillIDs(at(1), nil))
			if tc.depth > 0 {
				// no job here is a backfill: the pass starts what Schedule's starts
				assert.Equal(t, want, alone.ScheduleIDs(at(1), nil), "Schedule's pass")
			}
		})
	}
}

// Past the depth, an in-order start on nodes shared with a locked
// partition keeps off them, as Schedule's selection does: the wide job
// fits on n1 by the head's plan (it ends by the shadow time) but main,
// the head's partition, is locked. Held jobs say why.
func TestEASYDepthKeepsOffLockedNodes(t *testing.T) {
	s := New(cluster(t, overlapParts), WithBackfillDepth(1))
	first := submit(t, s, nodes(1, time.Hour), at(0))
	head := submit(t, s, nodes(2, time.Hour), at(0))
	spec := nodes(1, 30*time.Minute)
	spec.Request.Partition = "wide"
	wide := submit(t, s, spec, at(0))
	assert.Equal(t, []JobID{first, wide}, NewEASY(s).BackfillIDs(at(1), nil), "%d waits", head)
	p, _, _, ok := s.Cluster().Allocation(wide)
	require.True(t, ok)
	assert.NotContains(t, p.Names, "n0")
	assert.NotContains(t, p.Names, "n1")
}

// Jobs held by their partition, past the depth, keep the reason Schedule
// gives them.
func TestEASYDepthHeldReasons(t *testing.T) {
	for _, tc := range []struct {
		conf, part string
		limit      int
		want       Reason
	}{{downParts, "maint", 60, ReasonPartitionDown}, {limitParts, "debug", 60, ReasonPartitionTimeLimit}} {
		s := New(cluster(t, tc.conf), WithBackfillDepth(1))
		submit(t, s, nodes(2, time.Hour), at(0))
		submit(t, s, nodes(2, time.Hour), at(0))
		spec := nodes(1, time.Duration(tc.limit)*time.Minute)
		spec.Request.Partition = tc.part
		held := submit(t, s, spec, at(0))
		NewEASY(s).BackfillIDs(at(1), nil)
		j, ok := s.Job(held)
		require.True(t, ok)
		assert.Equal(t, tc.want, j.Reason, tc.part)
	}
}
