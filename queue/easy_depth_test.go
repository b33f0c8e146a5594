package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
	t.Skip("a known gap: an EASY pass at its depth stops at the head and does not reach another partition's jobs behind it; a Schedule pass before it (as the simulator runs with a planner) starts them")
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
