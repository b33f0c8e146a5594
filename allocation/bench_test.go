package allocation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/hpcsched/hpcsched/queue"
)

// ledgerAt is a ledger of projects accounts, each with a CPU allocation of
// 2026 credited generously, and jobs completed jobs spread over them.
func ledgerAt(b *testing.B, store allocation.Store, projects, jobs int) *allocation.Ledger {
	b.Helper()
	l := allocation.New(store, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	for i := range projects {
		acct := fmt.Sprint("p", i)
		p, err := l.CreateProject(ctx, allocation.Project{Name: acct, GID: uint32(i), Account: acct})
		if err != nil {
			b.Fatal(err)
		}
		a, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: t0, End: t0.AddDate(0, 1+i%12, 0)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Credit(ctx, a.ID, 1<<50, "", t0); err != nil {
			b.Fatal(err)
		}
	}
	for j := range jobs {
		start := allocation.JobStart{Job: allocation.JobID(j + 1), Account: fmt.Sprint("p", j%projects), Partition: "standard",
			Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}
		if _, err := l.PreDebitJob(ctx, start, t0); err != nil {
			b.Fatal(err)
		}
		if _, err := l.CompleteJob(ctx, start.Job, 10*time.Minute, allocation.OutcomeCompleted, t0); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

// One job's life in the ledger: pre-debit at start, completion at end.
func BenchmarkPreDebitComplete(b *testing.B) {
	for _, sc := range []struct{ projects, jobs int }{{100, 10_000}, {1000, 100_000}} {
		l := ledgerAt(b, nil, sc.projects, sc.jobs)
		b.Run(fmt.Sprintf("projects=%d/jobs=%d", sc.projects, sc.jobs), func(b *testing.B) {
			for i := range b.N {
				start := allocation.JobStart{Job: allocation.JobID(sc.jobs + i + 1), Account: fmt.Sprint("p", i%sc.projects),
					Partition: "standard", Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}
				if _, err := l.PreDebitJob(ctx, start, t0); err != nil {
					b.Fatal(err)
				}
				if _, err := l.CompleteJob(ctx, start.Job, 10*time.Minute, allocation.OutcomeCompleted, t0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The site factor as a scheduling pass uses it: one snapshot, then one
// Factor per pending job.
func BenchmarkSiteFactors(b *testing.B) {
	for _, projects := range []int{100, 1000} {
		l := ledgerAt(b, nil, projects, 0)
		shape := allocation.SigmoidPair{Credit: allocation.Sigmoid{L: 5, X0: 0.25}, Temporal: allocation.Sigmoid{L: 50, X0: 0.75}}
		b.Run(fmt.Sprintf("projects=%d/snapshot", projects), func(b *testing.B) {
			for range b.N {
				if _, err := l.SiteFactors(ctx, shape, t0); err != nil {
					b.Fatal(err)
				}
			}
		})
		sf, err := l.SiteFactors(ctx, shape, t0)
		if err != nil {
			b.Fatal(err)
		}
		job := &queue.Job{Account: "p7", Partition: "standard"}
		b.Run(fmt.Sprintf("projects=%d/factor", projects), func(b *testing.B) {
			for range b.N {
				sf.Factor(job, t0)
			}
		})
	}
}

// A credit on a file-backed store: the whole ledger is rewritten and
// fsynced, so the cost grows with its size.
func BenchmarkFileStoreWrite(b *testing.B) {
	for _, jobs := range []int{0, 1000, 10_000} {
		mem := ledgerAt(b, nil, 10, jobs)
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			s, err := allocation.OpenFile(filepath.Join(b.TempDir(), "ledger.json"))
			if err != nil {
				b.Fatal(err)
			}
			// Copy the ledger in by replaying into the file store once.
			l := allocation.New(s)
			if err := copyLedger(mem, l); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := l.Credit(ctx, 1, 1, "", t0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// copyLedger writes one ledger's file image through another's store by
// saving it: cheaper than replaying every job through an fsyncing store.
func copyLedger(from, to *allocation.Ledger) error {
	return allocation.CopyInto(from.Store.(*allocation.MemStore), to.Store.(*allocation.MemStore))
}

// Restarting a file store of completed jobs completed jobs (archived into
// segments by the store's compaction path) and an empty journal. B/op is
// what one open allocates; largest-file-B the size of the largest file of
// the ledger. HPCSCHED_ALLOC_RESTART_JOBS adds a larger size (say 1000000;
// building it takes minutes and about 600 MB of disk).
func BenchmarkRestart(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if n, err := strconv.Atoi(os.Getenv("HPCSCHED_ALLOC_RESTART_JOBS")); err == nil && n > 0 {
		sizes = append(sizes, n)
	}
	for _, jobs := range sizes {
		b.Run(fmt.Sprintf("completed=%d", jobs), func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "ledger.json")
			historyLedger(b, path, jobs)
			b.ResetTimer()
			reopenEach(b, path)
			b.StopTimer()
			var largest int64
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if info, err := e.Info(); err == nil {
					largest = max(largest, info.Size())
				}
			}
			b.ReportMetric(float64(largest), "largest-file-B")
		})
	}
}

// Reading the archive of a file store of completed jobs: one archived
// job (a bisection of its segment) and an allocation's whole history
// (every segment read through).
func BenchmarkArchivedReads(b *testing.B) {
	for _, jobs := range []int{10_000, 100_000} {
		path := filepath.Join(b.TempDir(), "ledger.json")
		historyLedger(b, path, jobs)
		s, err := allocation.OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("completed=%d/job", jobs), func(b *testing.B) {
			for i := range b.N {
				if _, err := s.Job(ctx, allocation.JobID(1+(i*7919)%jobs)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("completed=%d/history", jobs), func(b *testing.B) {
			for range b.N {
				if _, err := s.History(ctx, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		s.Close()
	}
}

// sharedHistory is a file store at path holding jobs completed jobs spread
// round-robin over projects allocations (so every segment holds records of
// each), all archived by the store's compaction path, a batch at a time.
func sharedHistory(b *testing.B, path string, projects, jobs int) {
	b.Helper()
	mem := allocation.NewMemStore()
	l := ledgerAt(b, mem, projects, 0)
	const batch = 10_000
	for done := 0; done < jobs; done += batch {
		for j := done; j < min(done+batch, jobs); j++ {
			start := allocation.JobStart{Job: allocation.JobID(j + 1), Account: fmt.Sprint("p", j%projects), Partition: "standard",
				Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}
			if _, err := l.PreDebitJob(ctx, start, t0); err != nil {
				b.Fatal(err)
			}
			if _, err := l.CompleteJob(ctx, start.Job, 10*time.Minute, allocation.OutcomeCompleted, t0); err != nil {
				b.Fatal(err)
			}
		}
		if err := allocation.ArchiveTo(mem, path); err != nil {
			b.Fatal(err)
		}
	}
	s, err := allocation.OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := allocation.CopyInto(mem, s); err != nil {
		b.Fatal(err)
	}
}

// One allocation's archived history and jobs when its records share the
// segments with those of allocations-1 others: read through each
// segment's allocation index, its own records only.
func BenchmarkAllocationHistory(b *testing.B) {
	const projects = 100
	for _, jobs := range []int{10_000, 100_000} {
		path := filepath.Join(b.TempDir(), "ledger.json")
		sharedHistory(b, path, projects, jobs)
		s, err := allocation.OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("allocations=%d/completed=%d/history", projects, jobs), func(b *testing.B) {
			for range b.N {
				if h, err := s.History(ctx, 7); err != nil || len(h) != 1+3*jobs/projects {
					b.Fatal(len(h), err)
				}
			}
		})
		b.Run(fmt.Sprintf("allocations=%d/completed=%d/jobs", projects, jobs), func(b *testing.B) {
			for range b.N {
				if js, err := s.Jobs(ctx, 7); err != nil || len(js) != jobs/projects {
					b.Fatal(len(js), err)
				}
			}
		})
		s.Close()
	}
}

// wcharNow is the bytes this process has passed to write calls so far
// (Linux; -1 elsewhere).
func wcharNow() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// Completed jobs through a file store's own compactions (every
// DefaultCompactEvery changes, DefaultSegmentSize segments), as a site
// runs it: segments is how many segment files the history leaves,
// written-B/job the bytes written (journal, snapshots, segments) a job,
// restart-ns and restart-B one OpenFile and Close of the result.
// HPCSCHED_ALLOC_CADENCE_JOBS sets the jobs (10,000 by default);
// HPCSCHED_ALLOC_BENCH_DIR puts the files there (a tmpfs makes the fsyncs
// cheap).
func BenchmarkCompactionCadence(b *testing.B) {
	jobs := 10_000
	if n, err := strconv.Atoi(os.Getenv("HPCSCHED_ALLOC_CADENCE_JOBS")); err == nil && n > 0 {
		jobs = n
	}
	dir := b.TempDir()
	if d := os.Getenv("HPCSCHED_ALLOC_BENCH_DIR"); d != "" {
		var err error
		if dir, err = os.MkdirTemp(d, "cadence-"); err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, "ledger.json")
	s, err := allocation.OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	l := allocation.New(s, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	storetest.Fixture(b, l, "lab", 1001, 1<<50)
	w0 := wcharNow()
	runJobs(b, l, 1, jobs)
	written := wcharNow() - w0
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	segs, _ := filepath.Glob(path + ".seg.*")
	b.Run(fmt.Sprintf("completed=%d", jobs), func(b *testing.B) {
		var allocs runtime.MemStats
		runtime.ReadMemStats(&allocs)
		before := allocs.TotalAlloc
		b.ResetTimer()
		reopenEach(b, path)
		b.StopTimer()
		runtime.ReadMemStats(&allocs)
		b.ReportMetric(float64(len(segs)), "segments")
		b.ReportMetric(float64(written)/float64(jobs), "written-B/job")
		b.ReportMetric(float64(allocs.TotalAlloc-before)/float64(b.N), "restart-B")
	})
}

// reopenEach opens and closes the file store at path b.N times: a
// restart, timed.
func reopenEach(b *testing.B, path string) {
	b.Helper()
	for range b.N {
		r, err := allocation.OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
