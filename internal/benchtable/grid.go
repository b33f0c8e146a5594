package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The scale grids: a benchmark run at several queue lengths
// P and cluster sizes N (sub-benchmarks named pending=P/nodes=N), and the
// growth fitted to them as t = c * P^a * N^b. A schedule pass takes
// microseconds to milliseconds, so it runs more times per figure.
var grids = []struct{ name, benchtime string }{
	{"BenchmarkBackfillGrid", "3x"},
	{"BenchmarkScheduleGrid", "50x"},
}

// cell is one grid point: P pending jobs on N nodes, ns per operation.
type cell struct {
	P, N int
	Ns   float64
}

// gridCells picks the results of the grid benchmark base out of rs.
func gridCells(rs []result, base string) []cell {
	var out []cell
	for _, r := range rs {
		rest, ok := strings.CutPrefix(r.Name, base+"/")
		if !ok {
			continue
		}
		if p, n, ok := parseGridName(rest); ok {
			out = append(out, cell{P: p, N: n, Ns: r.NsPerOp})
		}
	}
	return out
}

// parseGridName reads "pending=P/nodes=N".
func parseGridName(s string) (p, n int, ok bool) {
	a, b, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	pv, okP := strings.CutPrefix(a, "pending=")
	nv, okN := strings.CutPrefix(b, "nodes=")
	if !okP || !okN {
		return 0, 0, false
	}
	p, errP := strconv.Atoi(pv)
	n, errN := strconv.Atoi(nv)
	if errP != nil || errN != nil || p <= 0 || n <= 0 {
		return 0, 0, false
	}
	return p, n, true
}

var errUnderdetermined = errors.New("the grid needs at least two queue lengths and two cluster sizes")

// fitGrowth fits log t = c + a log P + b log N by least squares and
// returns the exponents a and b.
func fitGrowth(cells []cell) (a, b float64, err error) {
	ps, ns := map[int]bool{}, map[int]bool{}
	for _, c := range cells {
		ps[c.P], ns[c.N] = true, true
	}
	if len(ps) < 2 || len(ns) < 2 {
		return 0, 0, errUnderdetermined
	}
	// normal equations of the three unknowns (c, a, b)
	var m [3][4]float64
	for _, c := range cells {
		x := [3]float64{1, math.Log(float64(c.P)), math.Log(float64(c.N))}
		y := math.Log(c.Ns)
		for i := range 3 {
			for j := range 3 {
				m[i][j] += x[i] * x[j]
			}
			m[i][3] += x[i] * y
		}
	}
	sol, ok := solve3(m)
	if !ok {
		return 0, 0, errUnderdetermined
	}
	return sol[1], sol[2], nil
}

// solve3 solves a 3x3 system by Gaussian elimination with partial
// pivoting; false when it is singular.
func solve3(m [3][4]float64) ([3]float64, bool) {
	for col := range 3 {
		piv := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) < 1e-12 {
			return [3]float64{}, false
		}
		m[col], m[piv] = m[piv], m[col]
		for r := range 3 {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for k := col; k < 4; k++ {
				m[r][k] -= f * m[col][k]
			}
		}
	}
	return [3]float64{m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]}, true
}

// printGrid writes one grid as a Markdown table (rows P, columns N, ms
// per operation) and its fitted growth.
func printGrid(w io.Writer, base string, cells []cell) {
	var ps, ns []int
	at := map[[2]int]float64{}
	for _, c := range cells {
		if !slices.Contains(ps, c.P) {
			ps = append(ps, c.P)
		}
		if !slices.Contains(ns, c.N) {
			ns = append(ns, c.N)
		}
		at[[2]int{c.P, c.N}] = c.Ns
	}
	slices.Sort(ps)
	slices.Sort(ns)
	fmt.Fprintf(w, "%s (ms per pass)\n\n| pending \\ nodes |", base)
	for _, n := range ns {
		fmt.Fprintf(w, " %d |", n)
	}
	fmt.Fprint(w, "\n| --- |", strings.Repeat(" ---: |", len(ns)), "\n")
	for _, p := range ps {
		fmt.Fprintf(w, "| %d |", p)
		for _, n := range ns {
			if v, ok := at[[2]int{p, n}]; ok {
				fmt.Fprintf(w, " %.2f |", v/1e6)
			} else {
				fmt.Fprint(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
	if a, b, err := fitGrowth(cells); err != nil {
		fmt.Fprintf(w, "\ngrowth: %v\n\n", err)
	} else {
		fmt.Fprintf(w, "\ngrowth: t ~ P^%.2f x N^%.2f\n\n", a, b)
	}
}

// gridMain builds queue's test binary in dir, runs the grid benchmarks
// and prints each grid with its growth.
func gridMain(w io.Writer, dir string) error {
	que, err := build(dir, "queue")
	if err != nil {
		return err
	}
	for _, g := range grids {
		rs, err := run(que, "queue", "^"+g.name+"$", g.benchtime)
		if err != nil {
			return err
		}
		printGrid(w, g.name, gridCells(rs, g.name))
	}
	return nil
}
