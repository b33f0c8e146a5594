package allocation_test

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

// The conformance suite on a file store that archives its completed jobs
// after every change, in segments of a few records.
func TestFileStoreArchivingConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) allocation.Store {
		s, err := allocation.OpenFile(filepath.Join(t.TempDir(), "ledger.json"))
		require.NoError(t, err)
		allocation.SetCompactEvery(s, 1)
		allocation.SetSegmentSize(s, 2048)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// runJobs pre-debits and completes jobs first..first+n-1 on l.
func runJobs(t testing.TB, l *allocation.Ledger, first, n int) {
	t.Helper()
	for id := first; id < first+n; id++ {
		start := allocation.JobStart{Job: allocation.JobID(id), UID: uint32(id % 7), Account: "lab", Partition: "standard",
			Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}
		_, err := l.PreDebitJob(ctx, start, t0)
		require.NoError(t, err)
		_, err = l.CompleteJob(ctx, start.Job, time.Duration(id%50+1)*time.Minute, allocation.OutcomeCompleted, t0)
		require.NoError(t, err)
	}
}

// largestFile is the size of the largest file in dir.
func largestFile(t *testing.T, dir string) (name string, size int64) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		if info.Size() > size {
			name, size = e.Name(), info.Size()
		}
	}
	return name, size
}

// As completed jobs accumulate, no file of the ledger grows past a bound
// (the snapshot holds the live ledger only, segments are capped), and
// every completed job is still there after a restart, its balance and
// history whole.
func TestFileStoreLargestFileStaysBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 20)
	allocation.SetSegmentSize(s, 16<<10)
	l, a := fixture(t, s, 1<<40)
	const jobs, bound = 600, 32 << 10 // the old snapshot: about 530 B a job
	for round := range 3 {
		runJobs(t, l, 1+round*jobs/3, jobs/3)
		name, size := largestFile(t, dir)
		require.LessOrEqual(t, size, int64(bound), "%s after %d jobs", name, (round+1)*jobs/3)
	}
	require.Greater(t, allocation.Segments(s), 3)
	before, err := s.Balance(ctx, a.ID)
	require.NoError(t, err)
	beforeDebits, err := s.Debits(ctx, a.ID)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer r.Close()
	after, err := r.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	afterDebits, err := r.Debits(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, beforeDebits, afterDebits)
	js, err := r.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, jobs)
	for i, j := range js {
		require.Equal(t, allocation.JobID(i+1), j.ID)
		require.Equal(t, allocation.Completed, j.Status)
	}
	j, err := r.Job(ctx, 17)
	require.NoError(t, err)
	require.Equal(t, js[16], j)
	storetest.CheckConsistent(t, r)
}

// A completed job that was archived is still the job's record: a repeated
// pre-debit or completion returns it, a different one is a conflict, and a
// forget lets the id run again, before and after a restart.
func TestArchivedJobsKeepTheirRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 1)
	l, a := fixture(t, s, 1<<40)
	runJobs(t, l, 1, 10)
	require.Positive(t, allocation.Segments(s))
	for round := range 2 {
		if round == 1 {
			s = reopen(t, s, path)
		}
		st := s
		j, err := st.Job(ctx, 3)
		require.NoError(t, err)
		b, err := st.Balance(ctx, a.ID)
		require.NoError(t, err)
		again, err := st.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: j.UID, Account: "lab", Resource: allocation.CPU, Amount: j.Amount, Rate: j.Rate}, t0)
		require.NoError(t, err)
		require.Equal(t, j, again)
		_, err = st.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: j.UID + 1, Account: "lab", Resource: allocation.CPU, Amount: 1}, t0)
		require.ErrorIs(t, err, allocation.ErrConflict)
		done, err := st.Complete(ctx, allocation.Completion{Job: 3, Elapsed: j.Elapsed, Outcome: j.Outcome}, t0)
		require.NoError(t, err)
		require.Equal(t, j, done)
		b2, err := st.Balance(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, b, b2, "a repeated pre-debit or completion changed the balance")
	}
	require.NoError(t, s.Forget(ctx, 3, t0))
	_, err = s.Job(ctx, 3)
	require.ErrorIs(t, err, allocation.ErrNotFound)
	r := reopen(t, s, path)
	_, err = r.Job(ctx, 3)
	require.ErrorIs(t, err, allocation.ErrNotFound, "a forget of an archived job was lost on restart")
	_, err = r.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: 9, Account: "lab", Resource: allocation.CPU, Amount: 5}, t0)
	require.NoError(t, err)
	r = reopen(t, r, path)
	j, err := r.Job(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, uint32(9), j.UID)
	require.Equal(t, allocation.Executing, j.Status)
	amount := int64(2)
	_, err = r.Complete(ctx, allocation.Completion{Job: 3, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted, Amount: &amount}, t0)
	require.NoError(t, err)
	runJobs(t, allocation.New(r, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}})), 11, 2)
	r = reopen(t, r, path) // job 3 is now in two segments; the newer is its record
	js, err := r.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, 12)
	require.Equal(t, allocation.JobID(3), js[2].ID)
	require.Equal(t, uint32(9), js[2].UID)
	require.Equal(t, int64(2), js[2].Debited)
	j, err = r.Job(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, js[2], j)
	storetest.CheckConsistent(t, r)
	require.NoError(t, r.Close())
}

// reopen closes s and opens path again.
func reopen(t *testing.T, s *allocation.MemStore, path string) *allocation.MemStore {
	t.Helper()
	require.NoError(t, s.Close())
	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(r, 1)
	t.Cleanup(func() { r.Close() })
	return r
}

// historyLedger is a file store at path holding jobs completed jobs, all
// archived: built in memory a batch at a time, each batch moved to
// segments by the store's compaction path.
func historyLedger(t testing.TB, path string, jobs int) {
	t.Helper()
	mem := allocation.NewMemStore()
	l := allocation.New(mem, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	storetest.Fixture(t, l, "lab", 1001, 1<<50)
	const batch = 10_000
	for done := 0; done < jobs; done += batch {
		runJobs(t, l, done+1, min(batch, jobs-done))
		require.NoError(t, allocation.ArchiveTo(mem, path))
	}
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, allocation.CopyInto(mem, s))
	require.NoError(t, s.Close())
}

// restartBytes is what one OpenFile of path allocates.
func restartBytes(t testing.TB, path string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := allocation.OpenFile(path)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	return after.TotalAlloc - before.TotalAlloc
}

// A restart reads the live ledger, not its history: ten times the
// completed jobs allocate about the same. HPCSCHED_ALLOC_RESTART_JOBS
// sets the larger history (say 1000000: about 600 MB of segments and a
// few minutes to build).
func TestRestartIsIndependentOfHistory(t *testing.T) {
	small, large := 2_000, 20_000
	if testing.Short() {
		small, large = 500, 5_000
	}
	if n, err := strconv.Atoi(os.Getenv("HPCSCHED_ALLOC_RESTART_JOBS")); err == nil && n > large {
		large = n
	}
	var alloc [2]uint64
	for i, jobs := range []int{small, large} {
		path := filepath.Join(t.TempDir(), "ledger.json")
		historyLedger(t, path, jobs)
		alloc[i] = restartBytes(t, path)
		r, err := allocation.OpenFile(path)
		require.NoError(t, err)
		j, err := r.Job(ctx, allocation.JobID(jobs))
		require.NoError(t, err, "the last archived job")
		require.Equal(t, allocation.Completed, j.Status)
		ds, err := r.Debits(ctx, 1)
		require.NoError(t, err)
		var n int64
		for _, d := range ds {
			n += d.Jobs
		}
		require.Equal(t, int64(jobs), n)
		require.NoError(t, r.Close())
		t.Logf("%d completed jobs: restart allocated %d bytes", jobs, alloc[i])
	}
	require.Less(t, alloc[1], alloc[0]*3/2+64<<10, fmt.Sprintf("restart allocated %d bytes at %d jobs, %d at %d", alloc[1], large, alloc[0], small))
}

// A damaged segment is refused when read, naming the file, offset and
// record; CheckFile reports it and RepairFile keeps its intact records
// (balances unchanged, the damaged file kept beside). A segment cut short
// is refused at open.
func TestDamagedSegment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 10)
	allocation.SetSegmentSize(s, 2048)
	l, a := fixture(t, s, 1<<40)
	runJobs(t, l, 1, 40)
	before, err := s.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	segs, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	require.Greater(t, len(segs), 2)

	data, err := os.ReadFile(segs[1])
	require.NoError(t, err)
	index := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1 // the allocation index, the last line
	at := index - 40                                           // inside the last record
	data[at] ^= 1
	require.NoError(t, os.WriteFile(segs[1], data, 0o600))
	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	_, err = r.Jobs(ctx, a.ID)
	var se *allocation.SegmentError
	require.ErrorAs(t, err, &se)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.Equal(t, segs[1], se.File)
	require.Less(t, se.Offset, int64(at)) // the damaged record's start (read through the index: not counted)
	require.Greater(t, se.Offset+int64(len(data))-int64(at), int64(len(data))-int64(at))
	require.NoError(t, r.Close())

	rep, err := allocation.CheckFile(path)
	require.NoError(t, err)
	require.Contains(t, rep.Damage, segs[1])
	require.Regexp(t, `record [1-9][0-9]* at byte offset `+strconv.FormatInt(se.Offset, 10), rep.Damage) // read through: counted
	require.Len(t, rep.SegmentDamage, 1)
	rep, err = allocation.RepairFile(path)
	require.NoError(t, err)
	require.Equal(t, []string{segs[1] + ".damaged"}, rep.KeptSegments)
	lost := 1 // the damaged record, the last of its segment
	rep, err = allocation.CheckFile(path)
	require.NoError(t, err)
	require.Empty(t, rep.Damage)

	r, err = allocation.OpenFile(path)
	require.NoError(t, err)
	after, err := r.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	js, err := r.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, 40-lost)
	require.NoError(t, r.Close())

	last := segs[len(segs)-1]
	info, err := os.Stat(last)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(last, info.Size()-10))
	_, err = allocation.OpenFile(path)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.ErrorContains(t, err, last)
	rep, err = allocation.RepairFile(path)
	require.NoError(t, err)
	require.Len(t, rep.KeptSegments, 1)
	r, err = allocation.OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, r.Close())
}

// A lookup of an archived job bisects its segment: every archived id is
// found with its own record and an id between two archived ones is not,
// whether the segment is read in order (small) or bisected (large).
func TestArchivedJobLookup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	mem := allocation.NewMemStore()
	l := allocation.New(mem, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	storetest.Fixture(t, l, "lab", 1001, 1<<50)
	const n = 3000 // even ids 2..2n: more than one bisection step
	for id := 2; id <= 2*n; id += 2 {
		runJobs(t, l, id, 1)
	}
	require.NoError(t, allocation.ArchiveTo(mem, path))
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, allocation.CopyInto(mem, s))
	require.NoError(t, s.Close())
	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer r.Close()
	for id := allocation.JobID(1); id <= 2*n+1; id += 7 {
		j, err := r.Job(ctx, id)
		if id%2 == 1 {
			require.ErrorIs(t, err, allocation.ErrNotFound, "job %d", id)
			continue
		}
		require.NoError(t, err, "job %d", id)
		require.Equal(t, id, j.ID)
		require.Equal(t, time.Duration(id%50+1)*time.Minute, j.Elapsed)
	}
}

// A version 2 snapshot (the whole history, no totals) still opens: its
// balances and per-owner debits are recomputed from its activity, and
// its next compaction archives its completed jobs.
func TestVersion2SnapshotOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	body := `{"format":"hpcsched-allocation-ledger","version":2,"seq":7,"next":{"project":2,"allocation":2,"activity":5},` +
		`"projects":[{"id":1,"gname":"lab","gid":1001,"account":"lab"}],` +
		`"allocations":[{"id":1,"project_id":1,"category":"","resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}],` +
		`"activity":[{"id":1,"allocation_id":1,"kind":"credit","amount":1000,"time":"2026-01-01T00:00:00Z"},` +
		`{"id":2,"allocation_id":1,"kind":"predebit","amount":-240,"job_id":5,"uid":7,"time":"2026-01-01T00:00:00Z"},` +
		`{"id":3,"allocation_id":1,"kind":"release","amount":240,"job_id":5,"uid":7,"time":"2026-01-01T00:00:00Z"},` +
		`{"id":4,"allocation_id":1,"kind":"debit","amount":-40,"job_id":5,"uid":7,"time":"2026-01-01T00:00:00Z"}],` +
		`"jobs":[{"job_id":5,"allocation_id":1,"uid":7,"amount":240,"rate":4000000,"status":"completed","started":"2026-01-01T00:00:00Z",` +
		`"ended":"2026-01-01T00:10:00Z","elapsed":600000000000,"outcome":"completed","debited":40}],"failures":[]}`
	head := fmt.Sprintf("hpcsched-allocation-ledger 2 %d %08x\n", len(body), crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)))
	require.NoError(t, os.WriteFile(path, []byte(head+body), 0o600))
	require.NoError(t, os.WriteFile(path+".journal", []byte("hpcsched-allocation-journal 2 after 7\n"), 0o600))
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	b, err := s.Balance(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, allocation.Balance{Allocation: 1, Credits: 1000, Debited: 40, Balance: 960}, b)
	ds, err := s.Debits(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, []allocation.OwnerDebit{{Allocation: 1, UID: 7, Amount: 40, Jobs: 1}}, ds)
	allocation.SetCompactEvery(s, 1)
	_, err = s.Credit(ctx, 1, 1, "", t0)
	require.NoError(t, err)
	require.Equal(t, 1, allocation.Segments(s))
	r := reopen(t, s, path)
	j, err := r.Job(ctx, 5)
	require.NoError(t, err)
	require.Equal(t, int64(40), j.Debited)
	h, err := r.History(ctx, 1)
	require.NoError(t, err)
	require.Len(t, h, 5)
	storetest.CheckConsistent(t, r)
}

// A compaction that fails after writing its segments but before its
// snapshot (or while writing a segment) loses nothing and duplicates
// nothing: the segments it wrote are listed nowhere and the next
// compaction writes them again; a restart at any point sees every job
// once.
func TestArchivingFailureLosesNothing(t *testing.T) {
	for _, step := range []string{"segment", "write", "rename"} {
		t.Run(step, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			allocation.SetCompactEvery(s, 4)
			allocation.SetSegmentSize(s, 1024)
			l, a := fixture(t, s, 1<<40)
			fails := 0
			allocation.SetFailAt(s, func(name string) error {
				if name == step && fails < 3 {
					fails++
					return fmt.Errorf("injected failure at %s", name)
				}
				return nil
			})
			for round := range 4 {
				runJobs(t, l, 1+round*10, 10)
				r, err := allocation.OpenAfterCrash(path)
				require.NoError(t, err)
				js, err := r.Jobs(ctx, a.ID)
				require.NoError(t, err)
				require.Len(t, js, (round+1)*10)
				for i, j := range js {
					require.Equal(t, allocation.JobID(i+1), j.ID)
				}
				storetest.CheckConsistent(t, r)
				require.NoError(t, r.Close())
			}
			require.Equal(t, 3, fails)
			require.Positive(t, allocation.Segments(s))
			require.NoError(t, s.Close())
			requireWholeFile(t, path)
		})
	}
}

// An allocation's history and jobs read only the segments that hold it:
// a damaged segment of another allocation does not stand in the way.
func TestArchiveReadsOnlyTheAllocationsSegments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 4)
	allocation.SetSegmentSize(s, 1024)
	l, a := fixture(t, s, 1<<40)
	b := storetest.Fixture(t, l, "other", 1002, 1<<40)
	runJobs(t, l, 1, 20) // allocation a's jobs, archived first
	for id := allocation.JobID(100); id < 110; id++ {
		start := allocation.JobStart{Job: id, Account: "other", Partition: "standard", Usage: allocation.Usage{CPUs: 1}, TimeLimit: time.Hour}
		_, err := l.PreDebitJob(ctx, start, t0)
		require.NoError(t, err)
		_, err = l.CompleteJob(ctx, id, time.Minute, allocation.OutcomeCompleted, t0)
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	segs, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	data[len(data)-20] ^= 1
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))

	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer r.Close()
	_, err = r.History(ctx, a.ID)
	require.ErrorIs(t, err, allocation.ErrFile, "allocation a's first segment is damaged")
	h, err := r.History(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, h, 1+3*10)
	js, err := r.Jobs(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, js, 10)
}
