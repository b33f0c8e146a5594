package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// result is one benchmark line: its name (without the -GOMAXPROCS
// suffix) and its figures.
type result struct {
	Name     string
	NsPerOp  float64
	BPerOp   float64
	AllocsOp float64
	HasMem   bool
	// CPUPerOp is the process's CPU time per operation (cpu-ns/op, which
	// the selectnodes headline benchmarks report); 0 when not reported
	CPUPerOp float64
}

// parse reads the benchmark lines of `go test -bench` output and skips
// everything else (headers, PASS, logs).
func parse(r io.Reader) []result {
	var out []result
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if res, ok := parseLine(sc.Text()); ok {
			out = append(out, res)
		}
	}
	return out
}

// parseLine reads "BenchmarkX/a=1-2  100  123 ns/op  45 B/op  6 allocs/op";
// a line without ns/op is not a result.
func parseLine(line string) (result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return result{}, false
	}
	res := result{Name: trimProcs(f[0])}
	found := false
	for k := 2; k+1 < len(f); k++ {
		v, err := strconv.ParseFloat(f[k], 64)
		if err != nil {
			continue
		}
		switch f[k+1] {
		case "ns/op":
			res.NsPerOp, found = v, true
		case "B/op":
			res.BPerOp, res.HasMem = v, true
		case "allocs/op":
			res.AllocsOp, res.HasMem = v, true
		case "cpu-ns/op":
			res.CPUPerOp = v
		}
	}
	return res, found
}

// trimProcs drops the "-N" GOMAXPROCS suffix go test appends.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}
