package auction

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteLP writes p in CPLEX LP format, which CBC, GLPK and HiGHS read:
// binary x_j_i for bid i of job j (0-based positions), objective (1),
// one_j for (2), cpu_n and gpu_n for (3) and (4) on every node some bid
// uses. Terms wrap so no line gets long.
func WriteLP(w io.Writer, p *Problem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	lw := &lpWriter{w: bw}
	fmt.Fprintf(bw, "\\ auction window %q: %d jobs\nMaximize\n obj:", p.Name, len(p.Jobs))
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			lw.term(p.Value(j, i), j, i)
		}
	}
	if lw.n == 0 {
		lw.raw(" 0 x_none")
	}
	bw.WriteString("\nSubject To\n")
	for j, job := range p.Jobs {
		if len(job.Bids) == 0 {
			continue
		}
		lw.begin(fmt.Sprintf(" one_%d:", j))
		for i := range job.Bids {
			lw.term(1, j, i)
		}
		bw.WriteString(" <= 1\n")
	}
	writeCapacityRows(lw, p)
	bw.WriteString("Binary\n")
	for j, job := range p.Jobs {
		for i := range job.Bids {
			fmt.Fprintf(bw, " x_%d_%d\n", j, i)
		}
	}
	if lw.n == 0 {
		bw.WriteString(" x_none\n")
	}
	bw.WriteString("End\n")
	return bw.Flush()
}

// writeCapacityRows writes (3) and (4) for every node a bid uses.
func writeCapacityRows(lw *lpWriter, p *Problem) {
	type term struct{ j, i, amt int }
	cores := make([][]term, len(p.Nodes))
	gpus := make([][]term, len(p.Nodes))
	for j, job := range p.Jobs {
		for i, b := range job.Bids {
			for _, u := range b.Uses {
				if u.Cores > 0 {
					cores[u.Node] = append(cores[u.Node], term{j, i, u.Cores})
				}
				if u.GPUs > 0 {
					gpus[u.Node] = append(gpus[u.Node], term{j, i, u.GPUs})
				}
			}
		}
	}
	for n := range p.Nodes {
		for k, rows := range [2][][]term{cores, gpus} {
			if len(rows[n]) == 0 {
				continue
			}
			name, capacity := "cpu", p.Nodes[n].CPUs
			if k == 1 {
				name, capacity = "gpu", p.Nodes[n].GPUs
			}
			lw.begin(fmt.Sprintf(" %s_%d:", name, n))
			for _, t := range rows[n] {
				lw.term(float64(t.amt), t.j, t.i)
			}
			fmt.Fprintf(lw.w, " <= %d\n", capacity)
		}
	}
}

type lpWriter struct {
	w    *bufio.Writer
	line int // characters on the current line
	n    int // terms written in the current row
}

func (l *lpWriter) begin(label string) {
	l.w.WriteString(label)
	l.line, l.n = len(label), 0
}

func (l *lpWriter) raw(s string) {
	l.w.WriteString(s)
	l.line += len(s)
}

func (l *lpWriter) term(coef float64, j, i int) {
	if l.line > 200 {
		l.w.WriteString("\n   ")
		l.line = 3
	}
	var buf [64]byte
	b := buf[:0]
	if coef < 0 {
		b = append(b, " - "...)
		coef = -coef
	} else if l.n > 0 {
		b = append(b, " + "...)
	} else {
		b = append(b, ' ')
	}
	b = strconv.AppendFloat(b, coef, 'g', -1, 64)
	b = append(b, " x_"...)
	b = strconv.AppendInt(b, int64(j), 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(i), 10)
	l.w.Write(b)
	l.line += len(b)
	l.n++
}
