package queue

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// WithoutTombstones keeps tombstones again once a job has named another
// in a dependency; a restored scheduler keeps doing so even when no job
// left in the state names one, and so decides as the saved one.
func TestRestoreKeepsTombstonesOnceADependencyWasGiven(t *testing.T) {
	opts := []Option{WithForgetFinished(), WithoutTombstones()}
	conf := "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf), opts...)
	run := func(s *Scheduler, spec Spec, now time.Time) (JobID, error) {
		id, err := s.Submit(spec, now)
		if err != nil {
			return 0, err
		}
		s.Schedule(now)
		return id, s.Finish(id, Outcome{}, now.Add(time.Minute))
	}
	a := submit(t, s, nodes(1, time.Hour), at(0))
	dep := nodes(1, time.Hour)
	dep.Dependency = fmt.Sprintf("afterok:%d", a)
	b := submit(t, s, dep, at(0))
	s.Schedule(at(0))
	require.NoError(t, s.Finish(a, Outcome{}, at(1)))
	s.Schedule(at(1))
	require.NoError(t, s.Finish(b, Outcome{}, at(2))) // no job left names another
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	r, err := Restore(bytes.NewReader(saved.Bytes()), cluster(t, conf), opts...)
	require.NoError(t, err)
	for _, sch := range []*Scheduler{s, r} {
		d, err := run(sch, nodes(1, time.Hour), at(4)) // forgotten: with its end state?
		require.NoError(t, err)
		later := nodes(1, time.Hour)
		later.Dependency = fmt.Sprintf("afterok:%d", d)
		_, err = sch.Submit(later, at(6))
		require.NoError(t, err, "a dependency on a job forgotten after one was given")
	}
}

// A partition given with a node named twice lists it once, before and
// after a Snapshot and Restore.
func TestUpdatePartitionListsANodeOnce(t *testing.T) {
	conf := "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	p, _ := s.Cluster().Partition("batch")
	p.Nodes = append(p.Nodes, "n3")
	require.NoError(t, s.UpdatePartition(p, at(0)))
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	r, err := Restore(bytes.NewReader(saved.Bytes()), cluster(t, conf))
	require.NoError(t, err)
	a, _ := s.Cluster().Partition("batch")
	b, _ := r.Cluster().Partition("batch")
	require.Equal(t, b.Nodes, a.Nodes)
	require.Len(t, a.Nodes, 8)
}
