package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLine(t *testing.T) {
	cases := []struct {
		line string
		want result
		ok   bool
	}{
		{"BenchmarkBitmapFloor/nodes=100000-2   \t 5000\t 1759 ns/op\t 0 B/op\t 0 allocs/op",
			result{Name: "BenchmarkBitmapFloor/nodes=100000", NsPerOp: 1759, HasMem: true}, true},
		{"BenchmarkWillRun/nodes=10000/load=half/jobs=157/request=75pct-16  10  7182875 ns/op",
			result{Name: "BenchmarkWillRun/nodes=10000/load=half/jobs=157/request=75pct", NsPerOp: 7182875}, true},
		{"BenchmarkReplay/workload=aucsched:6/x-y 1 9953528063 ns/op 210.5 jobs/s 2530029112 B/op 4546503 allocs/op",
			result{Name: "BenchmarkReplay/workload=aucsched:6/x-y", NsPerOp: 9953528063, BPerOp: 2530029112, AllocsOp: 4546503, HasMem: true}, true},
		{"BenchmarkSelectNodes/nodes=100000/x-2  20000  8171 ns/op  12813 cpu-ns/op  13889 B/op  9 allocs/op",
			result{Name: "BenchmarkSelectNodes/nodes=100000/x", NsPerOp: 8171, CPUPerOp: 12813, BPerOp: 13889, AllocsOp: 9, HasMem: true}, true},
		{"BenchmarkSnapshot/take-2  --- FAIL: something", result{}, false},
		{"PASS", result{}, false},
		{"goos: linux", result{}, false},
		{"ok  \tgithub.com/hpcsched/hpcsched/selectnodes\t2.0s", result{}, false},
	}
	for _, tc := range cases {
		got, ok := parseLine(tc.line)
		require.Equal(t, tc.ok, ok, tc.line)
		if ok {
			require.Equal(t, tc.want, got, tc.line)
		}
	}
}

func TestParseSkipsNoise(t *testing.T) {
	out := "goos: linux\ngoarch: amd64\nBenchmarkA-2 10 5 ns/op\nsome log\nBenchmarkB/x=1-2 20 7.5 ns/op 3 B/op 1 allocs/op\nPASS\n"
	got := parse(strings.NewReader(out))
	require.Equal(t, []result{{Name: "BenchmarkA", NsPerOp: 5}, {Name: "BenchmarkB/x=1", NsPerOp: 7.5, BPerOp: 3, AllocsOp: 1, HasMem: true}}, got)
}

func TestMedianAndRatios(t *testing.T) {
	require.Equal(t, 2.0, median([]float64{3, 1, 2}))
	require.Equal(t, 2.5, median([]float64{4, 1, 2, 3}))
	runs := [][]result{
		{{Name: "BenchmarkBitmapFloor/nodes=100000", NsPerOp: 2000}, {Name: "BenchmarkSelectNodes/x", NsPerOp: 8000}},
		{{Name: "BenchmarkBitmapFloor/nodes=100000", NsPerOp: 1000}, {Name: "BenchmarkSelectNodes/x", NsPerOp: 5000}},
	}
	require.Equal(t, []float64{4, 5}, ratios(runs, "BenchmarkSelectNodes/x", "BenchmarkBitmapFloor/nodes=100000"))
	require.Empty(t, cpuRatios(runs, "BenchmarkSelectNodes/x", "BenchmarkBitmapFloor/nodes=100000"), "no cpu-ns/op reported")
	runs[1][0].CPUPerOp, runs[1][1].CPUPerOp = 1000, 3000
	require.Equal(t, []float64{3}, cpuRatios(runs, "BenchmarkSelectNodes/x", "BenchmarkBitmapFloor/nodes=100000"))
	require.Empty(t, ratios(runs, "BenchmarkMissing", "BenchmarkBitmapFloor/nodes=100000"))
	require.Equal(t, 5000.0, best(runs, "BenchmarkSelectNodes/x"))
	require.Zero(t, best(runs, "BenchmarkMissing"))
}

// FuzzParseLine: any line parses without panicking, and a result is a
// Benchmark line whose name keeps no GOMAXPROCS suffix.
func FuzzParseLine(f *testing.F) {
	f.Add("BenchmarkBitmapFloor/nodes=100000-2   \t 5000\t 1759 ns/op\t 0 B/op\t 0 allocs/op")
	f.Add("BenchmarkX-  1 2 ns/op")
	f.Add("Benchmark 1 NaN ns/op")
	f.Fuzz(func(t *testing.T, line string) {
		res, ok := parseLine(line)
		if !ok {
			return
		}
		require.True(t, strings.HasPrefix(res.Name, "Benchmark"), res.Name)
		require.Contains(t, line, res.Name)
	})
}
