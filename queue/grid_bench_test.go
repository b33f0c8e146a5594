package queue

import (
	"fmt"
	"testing"
	"time"
)

// gridSizes are the queue lengths and cluster sizes of the scale grids
// ("keep the scale tables (P x N grids with fitted exponents)
// up to date"); `make bench-grid` runs both grids and fits t ~ P^a x N^b.
var gridSizes = []int{1000, 3000, 10000}

// BenchmarkBackfillGrid is one whole-queue conservative backfill pass
// from scratch (no kept profile, no standing reservations) over P pending
// jobs of 1-32 nodes behind N/2 running two-node jobs filling N nodes.
func BenchmarkBackfillGrid(b *testing.B) {
	eachGridCell(b, func(s *Scheduler) {
		s.mu.Lock()
		s.resv = map[JobID]reservation{}
		s.kept = nil
		s.mu.Unlock()
		s.Backfill(t0.Add(time.Second))
	})
}

// BenchmarkScheduleGrid is a schedule pass in which nothing can start:
// P pending jobs behind a full cluster of N nodes. Jobs of a class that
// already failed in the pass are skipped, so it should grow about
// linearly in P and not with N.
func BenchmarkScheduleGrid(b *testing.B) {
	eachGridCell(b, func(s *Scheduler) { s.Schedule(t0.Add(time.Second)) })
}

// eachGridCell runs pass as the timed operation of one sub-benchmark
// pending=P/nodes=N per grid cell, on a scheduler set up outside the
// timing.
func eachGridCell(b *testing.B, pass func(*Scheduler)) {
	for _, p := range gridSizes {
		for _, n := range gridSizes {
			b.Run(fmt.Sprintf("pending=%d/nodes=%d", p, n), func(b *testing.B) {
				s := backfillBench(b, n, p, 0)
				b.ReportAllocs()
				for b.Loop() {
					pass(s)
				}
			})
		}
	}
}
