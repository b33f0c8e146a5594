package sim

import (
	"bufio"
	"cmp"
	"container/heap"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An independent EASY simulator, sharing no code with package queue or
// with this package's reader: processors as one counted resource, the
// classic shadow-time/extra-processors rule (Lifka 1995; Mu'alem and
// Feitelson 2001). Conventions (the replay's defaults, each a field so other traces
// can change them): capacity from the MaxProcs header; requested processors
// (field 8, else allocated, field 5); the requested time (field 9) as the
// estimate, else the run time rounded up to a minute; a job runs for
// min(run time, estimate) (killed at its limit); FCFS by submit time;
// completions before arrivals at equal times; jobs with an unknown run time
// and cancelled jobs that never ran are left out; bounded slowdown with
// tau = 10 s; utilization = sum(procs x run) / capacity / (last end - first
// submit).
type refConventions struct {
	KillAtLimit bool
	Tau         float64
	// ExactEstimates: the run time (whole seconds, at least 1) is the
	// estimate instead of field 9.
	ExactEstimates bool
}

type refJob struct {
	submit, run, est float64
	procs            int
}

type refResult struct {
	waitMean, bsld, util float64
	jobs                 int
}

func readRefTrace(t *testing.T, r io.Reader, limit int, conv refConventions) (jobs []refJob, capacity int) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "; MaxProcs:"); ok {
			capacity, _ = strconv.Atoi(strings.TrimSpace(rest))
			continue
		}
		if line == "" || line[0] == ';' {
			continue
		}
		f := strings.Fields(line)
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(f[i], 64)
			require.NoError(t, err)
			return v
		}
		run, status := num(3), int(num(10))
		if run < 0 || (status == 5 && run == 0) {
			continue
		}
		procs := int(num(7))
		if procs <= 0 {
			procs = int(num(4))
		}
		est := num(8)
		if conv.ExactEstimates {
			est = math.Max(1, math.Ceil(run))
		}
		if est <= 0 {
			est = math.Max(60, math.Ceil(run/60)*60)
		}
		jobs = append(jobs, refJob{submit: num(1), run: run, est: est, procs: max(procs, 1)})
	}
	require.NoError(t, sc.Err())
	slices.SortStableFunc(jobs, func(a, b refJob) int { return cmp.Compare(a.submit, b.submit) })
	if limit > 0 && limit < len(jobs) {
		jobs = jobs[:limit]
	}
	return jobs, capacity
}

type refRunning struct {
	end, estEnd float64
	procs       int
}
type refHeap []refRunning

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(refRunning)) }
func (h *refHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

func refEASY(jobs []refJob, capacity int, conv refConventions) refResult {
	free := capacity
	var queue []int
	var running refHeap
	start := make([]float64, len(jobs))
	runOf := func(j refJob) float64 {
		if conv.KillAtLimit {
			return math.Min(j.run, j.est)
		}
		return j.run
	}
	begin := func(i int, now float64) {
		start[i] = now
		free -= jobs[i].procs
		heap.Push(&running, refRunning{now + runOf(jobs[i]), now + jobs[i].est, jobs[i].procs})
	}
	next := 0
	for next < len(jobs) || len(running) > 0 {
		now := math.Inf(1)
		if next < len(jobs) {
			now = jobs[next].submit
		}
		if len(running) > 0 && running[0].end <= now {
			now = running[0].end
		}
		for len(running) > 0 && running[0].end <= now {
			free += heap.Pop(&running).(refRunning).procs
		}
		for next < len(jobs) && jobs[next].submit <= now {
			queue = append(queue, next)
			next++
		}
		for len(queue) > 0 && jobs[queue[0]].procs <= free {
			begin(queue[0], now)
			queue = queue[1:]
		}
		if len(queue) == 0 {
			continue
		}
		// the head's shadow time and the extra processors then
		ends := slices.Clone(running)
		slices.SortFunc(ends, func(a, b refRunning) int { return cmp.Compare(a.estEnd, b.estEnd) })
		// Every job ending at the shadow time frees its processors then,
		// so the extra processors count all of them, not only those up to
		// the first end that suffices.
		avail, shadow := free, math.Inf(1)
		for _, r := range ends {
			if avail >= jobs[queue[0]].procs && r.estEnd > shadow {
				break
			}
			avail += r.procs
			if avail >= jobs[queue[0]].procs && math.IsInf(shadow, 1) {
				shadow = r.estEnd
			}
		}
		extra := avail - jobs[queue[0]].procs
		kept := queue[:1]
		for _, i := range queue[1:] {
			j := jobs[i]
			switch {
			case j.procs <= free && now+j.est <= shadow:
				begin(i, now)
			case j.procs <= free && j.procs <= extra:
				begin(i, now)
				extra -= j.procs
			default:
				kept = append(kept, i)
			}
		}
		queue = kept
	}
	var wait, bsld, work float64
	first, last := math.Inf(1), 0.0
	for i, j := range jobs {
		w, run := start[i]-j.submit, runOf(j)
		wait += w
		bsld += math.Max(1, (w+run)/math.Max(run, conv.Tau))
		work += run * float64(j.procs)
		first, last = math.Min(first, j.submit), math.Max(last, start[i]+run)
	}
	n := float64(len(jobs))
	return refResult{waitMean: wait / n, bsld: bsld / n, util: work / float64(capacity) / (last - first), jobs: len(jobs)}
}

// TestEASYAgreesWithIndependentSimulation replays KTH-SP2 (which ran EASY)
// with our EASY backfill and with refEASY, and wants them within 2% on mean
// wait and bounded slowdown and 0.5 points on utilization, under the
// replay's default conventions and with perfect estimates. Under the race detector
// or -short the first 5,000 jobs stand for the whole trace.
func TestEASYAgreesWithIndependentSimulation(t *testing.T) {
	dir := shareddata.Require(t, "traces")
	const name = "KTH-SP2-1996-2.1-cln.swf"
	limit := 0
	if raceEnabled || testing.Short() {
		limit = 5000
	}
	for _, tt := range []struct {
		name string
		ref  refConventions
		ours Conventions
	}{
		{"requested-time", refConventions{KillAtLimit: true, Tau: 10}, Conventions{}},
		{"exact-estimates", refConventions{KillAtLimit: true, Tau: 10, ExactEstimates: true}, Conventions{Estimate: ExactRunTime}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, name))
			require.NoError(t, err)
			ref, capacity := readRefTrace(t, f, limit, tt.ref)
			f.Close()
			want := refEASY(ref, capacity, tt.ref)

			tr, err := OpenSWF(os.DirFS(dir), name, SWFOptions{})
			require.NoError(t, err)
			c, err := tr.ClusterFor(nil, nil)
			require.NoError(t, err)
			w := tr.WorkloadWith(name, c, tt.ours)
			if limit > 0 {
				w.Jobs = w.Jobs[:limit]
			}
			require.Len(t, w.Jobs, want.jobs, "both leave out the same jobs")
			got, err := Run(c, w, Options{Backfill: EASY, BackfillDepth: -1})
			require.NoError(t, err)
			m := got.Metrics
			t.Logf("ours: wait %.0f s, bsld %.2f, util %.2f%%; reference: wait %.0f s, bsld %.2f, util %.2f%%",
				m.WaitMean.Seconds(), m.BoundedSlowdown, 100*m.Utilization, want.waitMean, want.bsld, 100*want.util)
			assert.InEpsilon(t, want.waitMean, m.WaitMean.Seconds(), 0.02, "mean wait")
			assert.InEpsilon(t, want.bsld, m.BoundedSlowdown, 0.02, "bounded slowdown")
			assert.InDelta(t, 100*want.util, 100*m.Utilization, 0.5, "utilization (points)")
		})
	}
}

// TestRefEASYCountsEveryJobEndingAtTheShadowTime: two running jobs end
// together at the head's shadow time; both free their processors then, so
// a long job that fits in what the head leaves of them backfills at once.
// Counting only the first end that suffices held it until the head started.
func TestRefEASYCountsEveryJobEndingAtTheShadowTime(t *testing.T) {
	jobs := []refJob{
		{submit: 0, run: 100, est: 100, procs: 2},
		{submit: 0, run: 100, est: 100, procs: 2},
		{submit: 1, run: 10, est: 10, procs: 3}, // the head at t=1
		{submit: 1, run: 500, est: 500, procs: 2},
	}
	got := refEASY(jobs, 6, refConventions{KillAtLimit: true, Tau: 10})
	assert.InDelta(t, 99.0/4, got.waitMean, 1e-9, "only the head waits (99 s)")
}
