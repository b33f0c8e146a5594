package queue

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A reservation planned at EndOfTime (the running jobs end there, so the
// start saturates and the end with it) is what Snapshot writes; Restore
// reads it back, and the restored scheduler plans as the saved one.
func TestReservationAtEndOfTimeRestores(t *testing.T) {
	now := EndOfTime.Add(-30 * time.Minute)
	s := simple(t)
	submit(t, s, nodes(8, time.Hour), now)
	waiting := submit(t, s, nodes(8, time.Hour), now)
	require.Len(t, s.Schedule(now), 1)
	_, resv := s.Backfill(now)
	require.Len(t, resv, 1)
	require.Equal(t, waiting, resv[0].Job)
	require.Equal(t, EndOfTime, resv[0].Start)
	require.Equal(t, EndOfTime, resv[0].End)

	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	r, err := Restore(bytes.NewReader(saved.Bytes()), cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	require.Equal(t, s.Reservations(), r.Reservations())
	var again bytes.Buffer
	require.NoError(t, r.Snapshot(&again))
	require.Equal(t, saved.String(), again.String())
	_, a := s.Backfill(now.Add(time.Minute))
	_, b := r.Backfill(now.Add(time.Minute))
	require.Equal(t, a, b)
}

// Snapshot to a nil writer is an error, as Restore from a nil reader is.
func TestSnapshotToNilWriterIsAnError(t *testing.T) {
	s := simple(t)
	require.NotPanics(t, func() { require.Error(t, s.Snapshot(nil)) })
}
