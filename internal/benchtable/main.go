package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const floor = "BenchmarkBitmapFloor/nodes=100000"

func main() {
	runs := flag.Int("runs", 5, "processes whose SelectNodes/floor ratio is taken (median and range)")
	grid := flag.Bool("grid", false, "print the P x N scale grids of backfill and the schedule pass with their fitted growth instead")
	flag.Parse()
	if err := mainErr(os.Stdout, *runs, *grid); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func mainErr(w io.Writer, runs int, grid bool) error {
	dir, err := os.MkdirTemp("", "benchtable")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if grid {
		return gridMain(w, dir)
	}
	sel, err := build(dir, "selectnodes")
	if err != nil {
		return err
	}
	que, err := build(dir, "queue")
	if err != nil {
		return err
	}
	var selRuns [][]result
	for range max(runs, 1) {
		// one pattern for both: a benchmark whose name is shorter than
		// the pattern's levels does not match, so no deeper levels
		r, err := run(sel, "selectnodes", "^(BenchmarkBitmapFloor|BenchmarkSelectNodes)$/^nodes=100000$", "10000x") // enough operations that a collection or two falls in each figure
		if err != nil {
			return err
		}
		selRuns = append(selRuns, r)
	}
	steps := []struct{ bin, pkg, pattern, benchtime string }{
		{sel, "selectnodes", "^BenchmarkWillRun$/^nodes=/^load=half$/^jobs=/^request=75pct$", "5x"},
		{sel, "selectnodes", "^BenchmarkAllocateRelease$", "20000x"},
		{que, "queue", "^BenchmarkSchedule$", "20x"},
		{que, "queue", "^BenchmarkBackfill$", "2x"},
	}
	var rest []result
	for _, s := range steps {
		r, err := run(s.bin, s.pkg, s.pattern, s.benchtime)
		if err != nil {
			return err
		}
		rest = append(rest, r...)
	}
	printTable(w, selRuns, rest)
	return nil
}

// build compiles pkg's test binary into dir.
func build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, pkg+".test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, "./"+pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %w", pkg, err)
	}
	return bin, nil
}

// run runs the benchmarks matching pattern in pkg's directory.
func run(bin, pkg, pattern, benchtime string) ([]result, error) {
	var out bytes.Buffer
	cmd := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchmem", "-test.benchtime="+benchtime)
	cmd.Dir, cmd.Stdout, cmd.Stderr = pkg, &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s -test.bench=%s: %w\n%s", pkg, pattern, err, out.String())
	}
	res := parse(&out)
	if len(res) == 0 {
		return nil, fmt.Errorf("%s -test.bench=%s: no benchmark ran", pkg, pattern)
	}
	return res, nil
}

// ratios is name's ns/op over base's in each run that has both.
func ratios(runs [][]result, name, base string) []float64 {
	return ratiosOf(runs, name, base, func(r result) float64 { return r.NsPerOp })
}

// cpuRatios is ratios of CPU time per operation (cpu-ns/op), in the runs
// that report it for both.
func cpuRatios(runs [][]result, name, base string) []float64 {
	return ratiosOf(runs, name, base, func(r result) float64 { return r.CPUPerOp })
}

func ratiosOf(runs [][]result, name, base string, figure func(result) float64) []float64 {
	var out []float64
	for _, r := range runs {
		a, okA := find(r, name)
		b, okB := find(r, base)
		if okA && okB && figure(a) > 0 && figure(b) > 0 {
			out = append(out, figure(a)/figure(b))
		}
	}
	return out
}

// best is name's least ns/op over the runs: on a shared machine the
// run least disturbed by other processes.
func best(runs [][]result, name string) float64 {
	b := 0.0
	for _, r := range runs {
		if x, ok := find(r, name); ok && (b == 0 || x.NsPerOp < b) {
			b = x.NsPerOp
		}
	}
	return b
}

func find(rs []result, name string) (result, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r, true
		}
	}
	return result{}, false
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printTable(w io.Writer, selRuns [][]result, rest []result) {
	fmt.Fprintln(w, "| headline | figure | goal |")
	fmt.Fprintln(w, "| --- | ---: | --- |")
	for _, r := range selRuns[0] {
		if !strings.HasPrefix(r.Name, "BenchmarkSelectNodes/") {
			continue
		}
		rs := ratios(selRuns, r.Name, floor)
		if len(rs) == 0 {
			continue
		}
		cpu := ""
		if cs := cpuRatios(selRuns, r.Name, floor); len(cs) > 0 {
			cpu = fmt.Sprintf("; CPU time %.1fx (%.1f-%.1fx)", median(cs), slices.Min(cs), slices.Max(cs))
		}
		fmt.Fprintf(w, "| `%s` / `%s` | %.1fx (%.1f-%.1fx over %d runs; best times %.1fx)%s | within 5x |\n",
			strings.TrimPrefix(r.Name, "Benchmark"), strings.TrimPrefix(floor, "Benchmark"), median(rs), slices.Min(rs), slices.Max(rs), len(rs),
			best(selRuns, r.Name)/best(selRuns, floor), cpu)
	}
	for _, r := range rest {
		name := strings.TrimPrefix(r.Name, "Benchmark")
		switch {
		case strings.HasPrefix(name, "WillRun/"):
			goal := ""
			if strings.HasPrefix(name, "WillRun/nodes=10000/") {
				goal = "under 10 ms"
			}
			fmt.Fprintf(w, "| `%s` | %.2f ms | %s |\n", name, r.NsPerOp/1e6, goal)
		case strings.HasPrefix(name, "AllocateRelease/"):
			fmt.Fprintf(w, "| `%s` | %.0f allocs, %.0f B, %.0f ns | 0 allocs, O(job size) |\n", name, r.AllocsOp, r.BPerOp, r.NsPerOp)
		case strings.HasPrefix(name, "Schedule/"):
			fmt.Fprintf(w, "| `%s` (one pass) | %.2f ms, %.0f allocs | |\n", name, r.NsPerOp/1e6, r.AllocsOp)
		case strings.HasPrefix(name, "Backfill/"):
			fmt.Fprintf(w, "| `%s` | %.0f ms | 10k x 10k under 250 ms |\n", name, r.NsPerOp/1e6)
		}
	}
}
