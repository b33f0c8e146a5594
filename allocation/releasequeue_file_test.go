package allocation_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

func release(job allocation.JobID, amount *int64) allocation.PendingRelease {
	return allocation.PendingRelease{Completion: allocation.Completion{Job: job, Outcome: allocation.OutcomeCompleted, Amount: amount}, Now: t0}
}

// The Amount a release carries is the queue's own: neither the caller's
// pointer given to Add nor one Pending handed out reaches the queue.
func TestReleaseQueueAmountsAreNotShared(t *testing.T) {
	q, err := allocation.OpenReleaseQueue(filepath.Join(t.TempDir(), "q"))
	require.NoError(t, err)
	amount := int64(5)
	require.NoError(t, q.Add(release(1, &amount)))
	amount = 7
	got := q.Pending()
	require.Equal(t, int64(5), *got[0].Completion.Amount)
	*got[0].Completion.Amount = 99
	require.Equal(t, int64(5), *q.Pending()[0].Completion.Amount)
}

// Two queues over one file: the second writer's releases are not lost to
// the first's next write, which is refused until the file is read again.
func TestReleaseQueueRefusesToWriteOverAnotherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	a, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	b, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.NoError(t, a.Add(release(1, nil)))
	require.ErrorIs(t, b.Add(release(2, nil)), allocation.ErrConflict, "the file is a's now")
	require.NoError(t, a.Add(release(3, nil)))

	again, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.Len(t, again.Pending(), 2)
	require.NoError(t, again.Add(release(2, nil)))
	require.ErrorIs(t, a.Add(release(4, nil)), allocation.ErrConflict)
	_, _, err = a.Retry(ctx, allocation.NewMemStore())
	require.ErrorIs(t, err, allocation.ErrConflict)
	final, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	var ids []allocation.JobID
	for _, p := range final.Pending() {
		ids = append(ids, p.Completion.Job)
	}
	require.Equal(t, []allocation.JobID{1, 3, 2}, ids)
}

// A queue file cut short or with a byte changed is refused (ErrFile), not
// read with other values: a changed digit would complete another job.
func TestReleaseQueueRefusesADamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	q, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.NoError(t, q.Add(release(12, nil)))
	data, err := os.ReadFile(path)
	require.NoError(t, err)

	i := bytes.Index(data, []byte(`"job_id":12`)) + len(`"job_id":1`)
	changed := bytes.Clone(data)
	changed[i] = '3' // job 13
	require.NoError(t, os.WriteFile(path, changed, 0o600))
	_, err = allocation.OpenReleaseQueue(path)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.ErrorContains(t, err, "checksum")

	for _, cut := range []int{1, 5, len(data) / 2} {
		require.NoError(t, os.WriteFile(path, data[:len(data)-cut], 0o600))
		_, err = allocation.OpenReleaseQueue(path)
		require.ErrorIs(t, err, allocation.ErrFile, "cut %d", cut)
	}
}

// A file earlier versions wrote (the bare JSON array) is still read; a
// damaged one is refused with the byte offset of the problem.
func TestReleaseQueueReadsTheBareArrayOfEarlierVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	legacy := `[{"completion":{"job_id":4,"elapsed":0,"outcome":"completed"},"now":"2026-01-01T00:00:00Z","attempts":2}]`
	require.NoError(t, os.WriteFile(path, []byte(legacy), 0o600))
	q, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.Equal(t, allocation.JobID(4), q.Pending()[0].Completion.Job)
	require.Equal(t, 2, q.Pending()[0].Attempts)

	require.NoError(t, os.WriteFile(path, []byte(legacy[:26]+"x"+legacy[27:]), 0o600))
	_, err = allocation.OpenReleaseQueue(path)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.ErrorContains(t, err, "at byte 27 ")
}

// Misuse is refused with ErrInvalid naming what is wrong, and nothing is
// written: no file for the zero queue, no store to retry into, a
// completion no store would accept.
func TestReleaseQueueRefusesMisuse(t *testing.T) {
	dir := t.TempDir()
	_, err := allocation.OpenReleaseQueue("")
	require.ErrorIs(t, err, allocation.ErrInvalid)
	var zero allocation.ReleaseQueue
	require.ErrorIs(t, zero.Add(release(1, nil)), allocation.ErrInvalid)
	_, _, err = zero.Retry(ctx, allocation.NewMemStore())
	require.ErrorIs(t, err, allocation.ErrInvalid)

	q, err := allocation.OpenReleaseQueue(filepath.Join(dir, "q"))
	require.NoError(t, err)
	_, _, err = q.Retry(ctx, nil)
	require.ErrorIs(t, err, allocation.ErrInvalid)
	negative := int64(-1)
	for _, p := range []allocation.PendingRelease{{}, release(allocation.MaxJobID+1, nil), release(1, &negative), {Completion: allocation.Completion{Job: 1, Outcome: "done"}}} {
		require.ErrorIs(t, q.Add(p), allocation.ErrInvalid, "%+v", p)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

// A release that would make the file larger than OpenReleaseQueue reads
// is refused and not written: the file written before stays readable with
// every release it held.
func TestReleaseQueueRefusesToGrowPastWhatItCanRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	q, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	allocation.SetReleaseQueueLimit(q, 400)
	n := 0
	for ; n < 10; n++ {
		if err = q.Add(release(allocation.JobID(n+1), nil)); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, allocation.ErrFile)
	require.Greater(t, n, 0)
	require.Len(t, q.Pending(), n)
	again, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.Len(t, again.Pending(), n)
}
