package allocation_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

// segmentFiles is how many segment files lie beside path.
func segmentFiles(t *testing.T, path string) int {
	t.Helper()
	files, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	return len(files)
}

// Compactions merge their records into the newest segment while it is
// below the limit, so the number of segments follows the archived bytes,
// not the number of compactions; the replaced files are removed.
func TestSegmentsFillUpToTheLimit(t *testing.T) {
	t.Parallel() // it waits on fsync, not on the CPU
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	const limit, jobs = 8 << 10, 100
	allocation.SetCompactEvery(s, 4) // 50 compactions of 2 jobs
	allocation.SetSegmentSize(s, limit)
	l, a := fixture(t, s, 1<<40)
	runJobs(t, l, 1, jobs)
	files, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	var bytes int64
	for _, f := range files {
		info, err := os.Stat(f)
		require.NoError(t, err)
		bytes += info.Size()
	}
	t.Logf("%d jobs: %d segments, %d bytes", jobs, len(files), bytes)
	require.Equal(t, allocation.Segments(s), len(files), "a replaced segment was left")
	require.NoError(t, allocation.CheckSegmentIndexes(s))
	require.LessOrEqual(t, int64(len(files)), bytes/limit+2, "one segment a compaction, not one per %d bytes", limit)
	r := reopen(t, s, path)
	defer r.Close()
	js, err := r.Jobs(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, js, jobs)
	h, err := r.History(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, h, 1+3*jobs)
	storetest.CheckConsistent(t, r)
}

// ledgerScript drives two stores with the same random ops: new jobs
// (some refused), completions, retries after credits, forgets and reruns
// of completed jobs, so compactions archive jobs that older ones
// archived or refused too.
type ledgerScript struct {
	rng       *rand.Rand
	next      allocation.JobID
	executing []allocation.JobID
	done      []allocation.JobID // completed (live or archived)
	refused   []allocation.JobID
	accounts  []string
}

func (sc *ledgerScript) step(t *testing.T, stores ...allocation.Store) {
	t.Helper()
	var do func(allocation.Store) error
	switch k := sc.rng.IntN(20); {
	case k < 8 || len(sc.executing) == 0:
		sc.next++
		id, amount, account := sc.next, int64(1+sc.rng.IntN(400)), sc.accounts[sc.rng.IntN(len(sc.accounts))]
		do = func(s allocation.Store) error {
			_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: uint32(id % 5), Account: account, Resource: allocation.CPU, Amount: amount}, t0)
			return err
		}
		sc.executing = append(sc.executing, id)
	case k < 16:
		i := sc.rng.IntN(len(sc.executing))
		id, amount := sc.executing[i], int64(sc.rng.IntN(50))
		sc.executing = append(sc.executing[:i], sc.executing[i+1:]...)
		sc.done = append(sc.done, id)
		do = func(s allocation.Store) error {
			_, err := s.Complete(ctx, allocation.Completion{Job: id, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted, Amount: &amount}, t0)
			return err
		}
	case k < 17:
		alloc := allocation.AllocationID(1 + sc.rng.IntN(len(sc.accounts)))
		do = func(s allocation.Store) error { _, err := s.Credit(ctx, alloc, 300, "more", t0); return err }
	case k < 18 && len(sc.refused) > 0: // a refused job tried again
		id, account := sc.refused[sc.rng.IntN(len(sc.refused))], sc.accounts[sc.rng.IntN(len(sc.accounts))]
		do = func(s allocation.Store) error {
			_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 3, Account: account, Resource: allocation.CPU, Amount: 150}, t0)
			return err
		}
		sc.executing = append(sc.executing, id)
	case len(sc.done) > 0: // forgotten, then maybe run again
		i := sc.rng.IntN(len(sc.done))
		id := sc.done[i]
		sc.done = append(sc.done[:i], sc.done[i+1:]...)
		do = func(s allocation.Store) error { return s.Forget(ctx, id, t0) }
		sc.refused = append(sc.refused, id) // its id may run again
	default:
		return
	}
	var first error
	for i, s := range stores {
		err := do(s)
		if i == 0 {
			first = err
		}
		require.Equal(t, fmt.Sprint(first), fmt.Sprint(err), "store %d", i)
	}
	if errors.Is(first, allocation.ErrInsufficient) {
		sc.dropExecuting()
	}
}

// dropExecuting takes back the last job pre-debited: it was refused
// (kept for a retry).
func (sc *ledgerScript) dropExecuting() {
	if n := len(sc.executing); n > 0 {
		id := sc.executing[n-1]
		sc.executing = sc.executing[:n-1]
		sc.refused = append(sc.refused, id)
	}
}

// sameLedger checks that got answers as want does: balances, debits,
// refusals, the allocation's jobs and history, and every job id's lookup.
func sameLedger(t *testing.T, got, want allocation.Store, allocs []allocation.AllocationID, last allocation.JobID) {
	t.Helper()
	same := func(what string, g, w any, gerr, werr error) {
		t.Helper()
		require.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr), what)
		require.Equal(t, w, g, what)
	}
	gb, gerr := got.Balances(ctx)
	wb, werr := want.Balances(ctx)
	same("balances", gb, wb, gerr, werr)
	gf, gerr := got.Failures(ctx)
	wf, werr := want.Failures(ctx)
	same("failures", gf, wf, gerr, werr)
	for _, alloc := range allocs {
		gd, gerr := got.Debits(ctx, alloc)
		wd, werr := want.Debits(ctx, alloc)
		same("debits", gd, wd, gerr, werr)
		gj, gerr := got.Jobs(ctx, alloc)
		wj, werr := want.Jobs(ctx, alloc)
		same("jobs", gj, wj, gerr, werr)
		gh, gerr := got.History(ctx, alloc)
		wh, werr := want.History(ctx, alloc)
		same("history", gh, wh, gerr, werr)
	}
	for id := allocation.JobID(1); id <= last; id++ {
		g, gerr := got.Job(ctx, id)
		w, werr := want.Job(ctx, id)
		same(fmt.Sprintf("job %d", id), g, w, gerr, werr)
	}
}

// A crash (an injected failure, the store carrying on) at every step of a
// compaction that merges into the newest segment: a restart right after
// it, and one at the end, answers as a store that never crashed does;
// CheckFile finds the files whole and no replaced segment is left after
// the restart.
func TestCrashWhileMergingSegmentsLosesNothing(t *testing.T) {
	for _, step := range []string{"segment", "write", "sync", "close", "rename", "syncdir", "unlink", "truncate"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel() // the steps wait on fsync, not on the CPU
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			path := filepath.Join(t.TempDir(), "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			allocation.SetCompactEvery(s, 4)
			allocation.SetSegmentSize(s, 4<<10)
			ref := allocation.NewMemStore()
			var allocs []allocation.AllocationID
			for i, account := range []string{"lab", "other"} {
				a := storetest.Fixture(t, s, account, uint32(1001+i), 2000)
				storetest.Fixture(t, ref, account, uint32(1001+i), 2000)
				allocs = append(allocs, a.ID)
			}
			require.Equal(t, []allocation.AllocationID{1, 2}, allocs)
			sc := &ledgerScript{rng: rand.New(rand.NewPCG(seed, 1)), accounts: []string{"lab", "other"}}
			for range 50 {
				sc.step(t, s, ref)
			}
			require.Greater(t, allocation.Segments(s), 0, "the crash is to hit a merge")
			hit := false
			allocation.SetFailAt(s, func(at string) error {
				if at == step && !hit {
					hit = true
					return fmt.Errorf("injected crash at %s", at)
				}
				return nil
			})
			for n := 0; !hit; n++ {
				require.Less(t, n, 200, "step %s was never reached", step)
				sc.step(t, s, ref)
			}
			allocation.SetFailAt(s, nil)
			r, err := allocation.OpenAfterCrash(path)
			require.NoError(t, err)
			sameLedger(t, r, ref, allocs, sc.next)
			require.NoError(t, r.Close())
			for range 20 {
				sc.step(t, s, ref)
			}
			require.NoError(t, s.Close())
			r, err = allocation.OpenFile(path)
			require.NoError(t, err)
			defer r.Close()
			sameLedger(t, r, ref, allocs, sc.next)
			require.Equal(t, allocation.Segments(r), segmentFiles(t, path), "a replaced segment was left")
			require.NoError(t, allocation.CheckSegmentIndexes(r))
			require.NoError(t, r.Close())
			requireWholeFile(t, path)
		})
	}
}

// With HPCSCHED_ALLOC_DUMP=FILE (and HPCSCHED_ALLOC_DUMP_SEED), a random
// script of ops through a file store, then everything it answers after a
// restart, written to FILE: the same seed must give the same file before
// and after a change to how the store keeps its files.
func TestDumpAfterScript(t *testing.T) {
	out := os.Getenv("HPCSCHED_ALLOC_DUMP")
	if out == "" {
		t.Skip("HPCSCHED_ALLOC_DUMP is not set")
	}
	seed, _ := strconv.ParseUint(os.Getenv("HPCSCHED_ALLOC_DUMP_SEED"), 10, 64)
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 16)
	allocation.SetSegmentSize(s, 16<<10)
	accounts := []string{"lab", "other", "third"}
	for i, account := range accounts {
		storetest.Fixture(t, s, account, uint32(1001+i), 5000)
	}
	sc := &ledgerScript{rng: rand.New(rand.NewPCG(seed, 1)), accounts: accounts}
	for range 3000 {
		sc.step(t, s)
	}
	r := reopen(t, s, path)
	defer r.Close()
	var dump []any
	add := func(v any, err error) { dump = append(dump, v, fmt.Sprint(err)) }
	add(r.Balances(ctx))
	add(r.Failures(ctx))
	for id := allocation.AllocationID(1); id <= 3; id++ {
		add(r.Jobs(ctx, id))
		add(r.History(ctx, id))
		add(r.Debits(ctx, id))
	}
	for id := allocation.JobID(1); id <= sc.next; id++ {
		add(r.Job(ctx, id))
	}
	data, err := json.Marshal(dump)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, data, 0o644))
	t.Logf("seed %d: %d ops, %d jobs, %d segments, %d bytes of answers", seed, 3000, sc.next, allocation.Segments(r), len(data))
}

// A damaged newest segment is not merged (its damage would be copied or
// hidden): later compactions write segments of their own, and CheckFile
// still names the damaged one.
func TestDamagedSegmentIsNotMerged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	allocation.SetCompactEvery(s, 4)
	allocation.SetSegmentSize(s, 64<<10)
	l, _ := fixture(t, s, 1<<40)
	runJobs(t, l, 1, 10)
	files, err := filepath.Glob(path + ".seg.*")
	require.NoError(t, err)
	require.Len(t, files, 1)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	data[len(data)/2] ^= 1
	require.NoError(t, os.WriteFile(files[0], data, 0o600))
	runJobs(t, l, 11, 10)
	require.Equal(t, 2, allocation.Segments(s), "the damaged segment was merged")
	j, err := s.Job(ctx, 20)
	require.NoError(t, err)
	require.Equal(t, allocation.Completed, j.Status)
	require.NoError(t, s.Close())
	rep, err := allocation.CheckFile(path)
	require.NoError(t, err)
	require.Len(t, rep.SegmentDamage, 1)
	require.Contains(t, rep.SegmentDamage[0], filepath.Base(files[0]))
}
