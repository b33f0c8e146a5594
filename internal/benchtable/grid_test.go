package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFitGrowthRecoversExponents(t *testing.T) {
	for _, want := range [][2]float64{{1, 0.5}, {0.86, 0.70}, {2, 0}, {0, 1.3}} {
		var cells []cell
		for _, p := range []int{1000, 3000, 10000} {
			for _, n := range []int{1000, 3000, 10000} {
				ns := 42 * math.Pow(float64(p), want[0]) * math.Pow(float64(n), want[1])
				cells = append(cells, cell{P: p, N: n, Ns: ns})
			}
		}
		a, b, err := fitGrowth(cells)
		require.NoError(t, err)
		assert.InDelta(t, want[0], a, 1e-9)
		assert.InDelta(t, want[1], b, 1e-9)
	}
}

func TestFitGrowthNeedsTwoSizesEachWay(t *testing.T) {
	_, _, err := fitGrowth([]cell{{1000, 1000, 5}, {3000, 1000, 9}, {10000, 1000, 20}})
	assert.ErrorIs(t, err, errUnderdetermined)
	_, _, err = fitGrowth(nil)
	assert.ErrorIs(t, err, errUnderdetermined)
}

func TestGridCellsFromBenchmarkOutput(t *testing.T) {
	out := `BenchmarkBackfillGrid/pending=1000/nodes=1000-2   3   2000000 ns/op
BenchmarkBackfillGrid/pending=3000/nodes=1000-2   3   6000000 ns/op
BenchmarkBackfillGrid/pending=1000/nodes=3000-2   3   3000000 ns/op
BenchmarkBackfillGrid/pending=x/nodes=3000-2      3   3000000 ns/op
BenchmarkScheduleGrid/pending=1000/nodes=1000-2   3   100000 ns/op
PASS`
	cells := gridCells(parse(bytes.NewBufferString(out)), "BenchmarkBackfillGrid")
	assert.Equal(t, []cell{{1000, 1000, 2e6}, {3000, 1000, 6e6}, {1000, 3000, 3e6}}, cells)
	var w bytes.Buffer
	printGrid(&w, "BenchmarkBackfillGrid", cells)
	assert.Contains(t, w.String(), "| 1000 | 2.00 | 3.00 |")
	assert.Contains(t, w.String(), "| 3000 | 6.00 | |")
	assert.Contains(t, w.String(), "growth: t ~ P^1.00 x N^0.37")
}
