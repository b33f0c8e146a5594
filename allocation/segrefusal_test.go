package allocation_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

func refuse(t *testing.T, s allocation.Store, job allocation.JobID) {
	t.Helper()
	_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: job, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 100}, t0)
	require.ErrorIs(t, err, allocation.ErrInsufficient, "job %d", job)
}

func attempts(t *testing.T, s allocation.Store) map[allocation.JobID][]int64 {
	t.Helper()
	fs, err := s.Failures(ctx)
	require.NoError(t, err)
	out := map[allocation.JobID][]int64{}
	for _, f := range fs {
		out[f.Job] = append(out[f.Job], f.Attempt)
	}
	return out
}

// Refusals leave the snapshot as completed jobs do: each compaction moves
// them into the segments, so the snapshot stays the same size however
// many jobs were refused. Failures still lists every one; a retry against
// the same balance still records nothing new and one against a new
// balance is numbered after the archived attempts, after a restart too; a
// job refused, then run and completed, is found as the completed job.
func TestRefusalsLeaveTheSnapshot(t *testing.T) {
	const perRound = 250
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, perRound) // one compaction a round
	a := storetest.Fixture(t, s, "lab", 1001, 10)
	var sizes []int64
	job := allocation.JobID(0)
	for range 4 {
		for range perRound {
			job++
			refuse(t, s, job)
		}
		info, err := os.Stat(path)
		require.NoError(t, err)
		sizes = append(sizes, info.Size())
	}
	t.Logf("snapshot bytes after each %d refusals: %v", perRound, sizes)
	// A round adds one segment to the snapshot's index (about 200 bytes);
	// refusals kept in the snapshot would add about 170 bytes each.
	require.Less(t, sizes[3]-sizes[0], int64(3*1024), "snapshot sizes %v", sizes)
	require.Len(t, attempts(t, s), int(job))

	refuse(t, s, 1) // the same balance: nothing new
	require.Equal(t, []int64{1}, attempts(t, s)[1])
	_, err = s.Credit(ctx, a.ID, 5, "top-up", t0)
	require.NoError(t, err)
	refuse(t, s, 1)
	require.Equal(t, []int64{1, 2}, attempts(t, s)[1])

	require.NoError(t, s.Close())
	s, err = allocation.OpenFile(path)
	require.NoError(t, err)
	defer s.Close()
	allocation.SetCompactEvery(s, 1)
	refuse(t, s, 1) // attempt 2 was against this balance
	refuse(t, s, 2)
	got := attempts(t, s)
	require.Equal(t, []int64{1, 2}, got[1])
	require.Equal(t, []int64{1, 2}, got[2])
	require.Len(t, got, int(job))

	_, err = s.Credit(ctx, a.ID, 1000, "grant", t0)
	require.NoError(t, err)
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 100, Rate: 1_000_000}, t0)
	require.NoError(t, err, "a refused job runs once the balance covers it")
	_, err = s.Complete(ctx, allocation.Completion{Job: 3, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, t0)
	require.NoError(t, err)
	_, err = s.Credit(ctx, a.ID, 1, "one more compaction", t0)
	require.NoError(t, err)
	j, err := s.Job(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, allocation.Completed, j.Status)
	js, err := s.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, 1)
	require.Equal(t, []int64{1}, attempts(t, s)[3])
	storetest.CheckConsistent(t, s)
}

// One allocation's history and jobs read its own records of a segment
// (through the segment's allocation index) and no others: a damaged record
// of another allocation in the same segment does not stand in the way,
// while that allocation's own reads refuse it, naming the record's offset.
func TestHistoryReadsOnlyItsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 1000)
	l, a := fixture(t, s, 1<<40)
	b := storetest.Fixture(t, l, "other", 1002, 1<<40)
	for id := allocation.JobID(1); id <= 40; id++ { // odd ids: a; even: b; all in one segment
		account := []string{"other", "lab"}[id%2]
		start := allocation.JobStart{Job: id, Account: account, Partition: "standard", Usage: allocation.Usage{CPUs: 1}, TimeLimit: time.Hour}
		_, err := l.PreDebitJob(ctx, start, t0)
		require.NoError(t, err)
		_, err = l.CompleteJob(ctx, id, time.Minute, allocation.OutcomeCompleted, t0)
		require.NoError(t, err)
	}
	allocation.SetCompactEvery(s, 1)
	_, err = s.Credit(ctx, a.ID, 1, "compact", t0)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	segs, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	require.Len(t, segs, 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	at := bytes.Index(data, []byte(`{"job":{"job_id":20,`)) // b's job 20, mid-segment
	require.Positive(t, at)
	data[at+30] ^= 1
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))
	recordStart := int64(bytes.LastIndexByte(data[:at], '\n') + 1)

	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer r.Close()
	h, err := r.History(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, h, 2+3*20) // two credits, three activities a job
	js, err := r.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, 20)
	_, err = r.History(ctx, b.ID)
	var se *allocation.SegmentError
	require.ErrorAs(t, err, &se)
	require.Equal(t, recordStart, se.Offset)
	_, err = r.Jobs(ctx, b.ID)
	require.ErrorAs(t, err, &se)
}
