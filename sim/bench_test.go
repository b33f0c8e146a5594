package sim

import (
	"os"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// BenchmarkReplay times whole replays; jobs/s is reported per run.
func BenchmarkReplay(b *testing.B) {
	b.Run("trace=KTH-SP2/jobs=28476/nodes=100/backfill", func(b *testing.B) {
		dir := shareddata.Require(b, "traces")
		tr, err := OpenSWF(os.DirFS(dir), "KTH-SP2-1996-2.1-cln.swf", SWFOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c, err := tr.ClusterFor(nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(c, tr.Workload("kth", c), Options{Backfill: Conservative}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	})
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/conservative", func(b *testing.B) {
		w, err := Generate("6", 1024, 16, 1)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c, err := selectnodes.Seed001()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(c, w, Options{Backfill: Conservative}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(w.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	})
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/fcfs", func(b *testing.B) {
		w, err := Generate("6", 1024, 16, 1)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c, err := selectnodes.Seed001()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(c, w, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(w.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	})
}

// BenchmarkReplayEASY is the KTH-SP2 replay with EASY backfill (issue 17:
// under a second).
func BenchmarkReplayEASY(b *testing.B) {
	b.Run("trace=KTH-SP2/jobs=28476/nodes=100/easy", func(b *testing.B) {
		dir := shareddata.Require(b, "traces")
		tr, err := OpenSWF(os.DirFS(dir), "KTH-SP2-1996-2.1-cln.swf", SWFOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c, err := tr.ClusterFor(nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(c, tr.Workload("kth", c), Options{Backfill: EASY, BackfillDepth: -1}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	})
}

// BenchmarkReplaySeed001EASY is workload 6 with EASY backfill.
func BenchmarkReplaySeed001EASY(b *testing.B) {
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/easy", func(b *testing.B) {
		w, err := Generate("6", 1024, 16, 1)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c, err := selectnodes.Seed001()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(c, w, Options{Backfill: EASY}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(w.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	})
}
