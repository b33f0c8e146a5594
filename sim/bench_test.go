package sim

import (
	"io/fs"
	"os"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// replay times whole replays of the workload load returns on a fresh
// cluster each time; jobs/s is reported per run.
func replay(b *testing.B, load func() (*selectnodes.Cluster, *Workload), o Options) {
	jobs := 0
	for b.Loop() {
		c, w := load()
		if _, err := Run(c, w, o); err != nil {
			b.Fatal(err)
		}
		jobs += len(w.Jobs)
	}
	b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
}

// kth loads KTH-SP2 (28,476 jobs on 100 single-processor nodes).
func kth(b *testing.B) func() (*selectnodes.Cluster, *Workload) {
	return traceLoader(b, "KTH-SP2-1996-2.1-cln.swf", "kth")
}

// traceLoader reads the shared trace file once and returns what makes a
// fresh cluster sized from it and its workload, named name.
func traceLoader(b *testing.B, file, name string) func() (*selectnodes.Cluster, *Workload) {
	dir := shareddata.Require(b, "traces")
	tr, err := OpenSWF(os.DirFS(dir), file, SWFOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return func() (*selectnodes.Cluster, *Workload) {
		c, err := tr.ClusterFor(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		return c, tr.Workload(name, c)
	}
}

// seed001 loads seed-001 workload id on the 1024-node tree.
func seed001(b *testing.B, id string) func() (*selectnodes.Cluster, *Workload) {
	w, err := Generate(id, 1024, 16, 1)
	if err != nil {
		b.Fatal(err)
	}
	return func() (*selectnodes.Cluster, *Workload) {
		c, err := selectnodes.Seed001()
		if err != nil {
			b.Fatal(err)
		}
		return c, w
	}
}

// BenchmarkReplay times whole replays.
func BenchmarkReplay(b *testing.B) {
	b.Run("trace=KTH-SP2/jobs=28476/nodes=100/backfill", func(b *testing.B) {
		replay(b, kth(b), Options{Backfill: Conservative})
	})
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/conservative", func(b *testing.B) {
		replay(b, seed001(b, "6"), Options{Backfill: Conservative})
	})
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/fcfs", func(b *testing.B) {
		replay(b, seed001(b, "6"), Options{})
	})
}

// BenchmarkReplayEASY is the KTH-SP2 replay with EASY backfill (goal:
// under a second).
func BenchmarkReplayEASY(b *testing.B) {
	b.Run("trace=KTH-SP2/jobs=28476/nodes=100/easy", func(b *testing.B) {
		replay(b, kth(b), Options{Backfill: EASY, BackfillDepth: -1})
	})
}

// BenchmarkReplaySeed001EASY is workload 6 with EASY backfill.
func BenchmarkReplaySeed001EASY(b *testing.B) {
	b.Run("workload=aucsched:6/jobs=2095/nodes=1024/easy", func(b *testing.B) {
		replay(b, seed001(b, "6"), Options{Backfill: EASY})
	})
}

// BenchmarkReadKTH reads KTH-SP2 (2.6 MB, 28,476 jobs) and turns it into a
// workload, as the CLI does before a replay.
func BenchmarkReadKTH(b *testing.B) {
	dir := shareddata.Require(b, "traces")
	fsys := os.DirFS(dir)
	b.Run("trace=KTH-SP2/jobs=28476/open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := OpenSWF(fsys, "KTH-SP2-1996-2.1-cln.swf", SWFOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, keep := range []bool{false, true} {
		name := "trace=KTH-SP2/jobs=28476/stream"
		if keep {
			name += "/keepfields" // as the CLI reads for --jobs F.swf
		}
		b.Run(name, func(b *testing.B) { streamKTH(b, fsys, SWFOptions{KeepFields: keep}) })
	}
	b.Run("trace=KTH-SP2/jobs=28476/workload", func(b *testing.B) {
		tr, err := OpenSWF(fsys, "KTH-SP2-1996-2.1-cln.swf", SWFOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c, err := tr.ClusterFor(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			tr.Workload("kth", c)
		}
	})
}

// nasa loads NASA-iPSC (18,239 jobs on 128 single-processor nodes, lightly
// loaded: most jobs start at their submission).
func nasa(b *testing.B) func() (*selectnodes.Cluster, *Workload) {
	return traceLoader(b, "NASA-iPSC-1993-3.1-cln.swf", "nasa")
}

// BenchmarkReplayLight times conservative backfill on a lightly loaded
// trace, where a pass mostly starts a job that fits at once.
func BenchmarkReplayLight(b *testing.B) {
	b.Run("trace=NASA-iPSC/jobs=18239/nodes=128/backfill", func(b *testing.B) {
		replay(b, nasa(b), Options{Backfill: Conservative})
	})
}

// streamKTH reads KTH-SP2 as the CLI does, one job at a time through a
// TraceSource, under opts.
func streamKTH(b *testing.B, fsys fs.FS, opts SWFOptions) {
	tr, err := OpenSWF(fsys, "KTH-SP2-1996-2.1-cln.swf", SWFOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := tr.ClusterFor(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sr, closer, err := OpenSWFReader(fsys, "KTH-SP2-1996-2.1-cln.swf", opts)
		if err != nil {
			b.Fatal(err)
		}
		src := NewTraceSource(sr, c, Conventions{}, 0)
		for {
			if _, err := src.Next(); err != nil {
				break
			}
		}
		closer.Close()
	}
}
