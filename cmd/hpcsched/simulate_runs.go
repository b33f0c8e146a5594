package main

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcsched/hpcsched/sim"
)

// cell is one run: a workload, a policy and backfill, and a seed for a
// generated workload. Cells of one group (workload and variant) differ
// only in the seed and make one row.
type cell struct {
	workload string
	variant  variant
	seed     uint64
	seeded   bool // a generated workload: the seed matters
	first    bool // the group's first cell (its charts are drawn)
	group    int
}

// cellOut is what a run gave.
type cellOut struct {
	res  *sim.Result
	row  row
	err  error
	wall time.Duration
}

// maxSeeds bounds --seeds (each seed is a whole run of every workload).
const maxSeeds = 1000

// parseSeeds reads "1-7", "1,3,5" or both ("1-3,10").
func parseSeeds(spec string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		a, err1 := strconv.ParseUint(lo, 10, 64)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseUint(hi, 10, 64)
		}
		if err1 == nil && err2 == nil && b < a {
			return nil, usagef("simulate: --seeds %q: the range %s runs downward (write %d-%d)", spec, item, b, a)
		}
		if err1 != nil || err2 != nil {
			return nil, usagef("simulate: --seeds %q: want seeds or ranges such as 1-7 or 1,3,5", spec)
		}
		if b-a >= maxSeeds || len(out)+int(b-a+1) > maxSeeds {
			return nil, usagef("simulate: --seeds %q: more than %d seeds", spec, maxSeeds)
		}
		for s := a; ; s++ {
			if seen[s] {
				// the mean and deviation would count its run twice
				return nil, usagef("simulate: --seeds %q: seed %d is given twice", spec, s)
			}
			seen[s] = true
			out = append(out, s)
			if s == b {
				break
			}
		}
	}
	return out, nil
}

// cells lists the runs in output order: workloads, then variants, then
// seeds (a trace has one run: the seed does not change it).
func (f *simFlags) cells(wls []string, vs []variant) []cell {
	var out []cell
	group := 0
	for _, wl := range wls {
		seeded := strings.HasPrefix(wl, "aucsched:")
		for _, v := range vs {
			seeds := f.seeds
			if !seeded {
				seeds = seeds[:1]
			}
			for k, seed := range seeds {
				out = append(out, cell{workload: wl, variant: v, seed: seed, seeded: seeded, first: k == 0, group: group})
			}
			group++
		}
	}
	return out
}

// runCells runs the cells on f.parallel goroutines and hands each
// outcome to the collector as it ends, which prints the rows it
// completes; the board shows progress on stderr. No run starts once the
// collector says the rest are not worth running.
func (f *simFlags) runCells(cells []cell, col *collector, board *runBoard) {
	runner := f.runner
	if runner == nil {
		runner = f.runOne
	}
	var stop atomic.Bool
	run := func(i int) {
		start := time.Now()
		res, r, err := runner(cells[i], board.begin(i))
		o := cellOut{res: res, row: r, err: err, wall: time.Since(start)}
		board.end(i, o, func() {
			if !col.put(i, o) {
				stop.Store(true)
			}
		})
	}
	defer board.close()
	if f.parallel <= 1 {
		for i := range cells {
			if run(i); stop.Load() {
				return
			}
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(f.parallel, len(cells)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i)
			}
		}()
	}
	for i := 0; i < len(cells) && !stop.Load(); i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// aggregate makes one row of a group's runs (one per seed): each measure
// is the mean over the runs, with its standard deviation over them in Std;
// job counts are summed. One run is its own row.
func aggregate(rows []row) row {
	if len(rows) == 1 {
		return rows[0]
	}
	out := rows[0]
	out.Jobs, out.Started, out.Rejected, out.Stuck = 0, 0, 0, 0
	out.Unrunnable, out.StuckReasons, out.TraceSkipped = map[string]int{}, map[string]int{}, nil
	for _, r := range rows {
		out.Jobs += r.Jobs
		out.Started += r.Started
		out.Rejected += r.Rejected
		out.Stuck += r.Stuck
		for k, v := range r.Unrunnable {
			out.Unrunnable[k] += v
		}
		for k, v := range r.StuckReasons {
			out.StuckReasons[k] += v
		}
		out.Seeds = append(out.Seeds, r.Seed)
	}
	if len(out.Unrunnable) == 0 {
		out.Unrunnable = nil
	}
	if len(out.StuckReasons) == 0 {
		out.StuckReasons = nil
	}
	out.Seed = 0
	std := &rowStd{}
	stat := func(get func(r row) float64) (float64, float64) {
		var sum float64
		for _, r := range rows {
			sum += get(r)
		}
		mean := sum / float64(len(rows))
		var v float64
		for _, r := range rows {
			v += (get(r) - mean) * (get(r) - mean)
		}
		return mean, math.Sqrt(v / float64(len(rows)))
	}
	out.SpreadMean, std.SpreadMean = stat(func(r row) float64 { return r.SpreadMean })
	out.SpreadStd, _ = stat(func(r row) float64 { return r.SpreadStd })
	out.Utilization, std.Utilization = stat(func(r row) float64 { return r.Utilization })
	out.Busy, std.Busy = stat(func(r row) float64 { return r.Busy })
	out.WaitMean, std.WaitMean = stat(func(r row) float64 { return r.WaitMean })
	out.WaitMedian, std.WaitMedian = stat(func(r row) float64 { return r.WaitMedian })
	out.WaitP95, std.WaitP95 = stat(func(r row) float64 { return r.WaitP95 })
	out.BoundedSlowdown, std.BoundedSlowdown = stat(func(r row) float64 { return r.BoundedSlowdown })
	out.Makespan, std.Makespan = stat(func(r row) float64 { return r.Makespan })
	if out.LevelKnown {
		m, s := stat(func(r row) float64 { return *r.LevelMean })
		js, _ := stat(func(r row) float64 { return *r.LevelStd })
		out.LevelMean, out.LevelStd, std.LevelMean = &m, &js, &s
	}
	out.WallSeconds, out.JobsPerSecond = 0, 0
	for _, r := range rows {
		out.WallSeconds += r.WallSeconds
	}
	if out.WallSeconds > 0 {
		out.JobsPerSecond = float64(out.Jobs) / out.WallSeconds
	}
	out.Std = std
	return out
}
