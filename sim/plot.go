package sim

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// A small SVG plotting kit: panels with linear axes, "nice" ticks, unit
// labels, titles and legends. Every text goes through xml.EscapeText, so a
// trace's header cannot inject markup. Coordinates print with one decimal,
// which keeps files small.

// palette is colour-blind-safe (Okabe-Ito).
var palette = [...]string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

func colour(i int) string { return palette[i%len(palette)] }

// svgWriter accumulates one SVG document.
type svgWriter struct {
	b   *bufio.Writer
	err error
}

func (s *svgWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.b, format, args...)
	}
}

// text writes an escaped label; anchor is start, middle or end.
func (s *svgWriter) text(x, y float64, anchor, extra, label string) {
	var esc strings.Builder
	_ = xml.EscapeText(&esc, []byte(label)) // a strings.Builder cannot fail
	s.printf(`<text x="%.1f" y="%.1f" text-anchor="%s"%s>%s</text>`+"\n", x, y, anchor, extra, esc.String())
}

func beginSVG(w io.Writer, width, height float64, title string) *svgWriter {
	s := &svgWriter{b: bufio.NewWriter(w)}
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	s.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	s.text(width/2, 20, "middle", ` font-size="15" font-weight="bold"`, title)
	return s
}

func (s *svgWriter) end() error {
	s.printf("</svg>\n")
	if s.err != nil {
		return s.err
	}
	return s.b.Flush()
}

// axis is a linear scale from [lo, hi] to pixels [p0, p1].
type axis struct {
	lo, hi, p0, p1 float64
	label          string // with its unit, e.g. "time (h)"
}

func (a axis) at(v float64) float64 {
	if a.hi == a.lo {
		return a.p0
	}
	return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// niceTicks returns about n round tick values covering [lo, hi] and
// widens lo and hi to the outer ticks.
func niceTicks(lo, hi float64, n int) (ticks []float64, nlo, nhi float64) {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	nlo, nhi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	for v := nlo; v <= nhi+step/2; v += step {
		ticks = append(ticks, v)
	}
	return ticks, nlo, nhi
}

func tickLabel(v float64) string {
	if math.Abs(v) >= 1e5 || (v != 0 && math.Abs(v) < 1e-3) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// panel is one chart: a frame, axes with ticks, a title, a legend.
type panel struct {
	x, y, w, h float64 // the plotting area
	xa, ya     axis
}

// newPanel draws the frame, the ticks, the axis labels and the title of a
// chart whose plotting area has its top-left corner at (x, y), and whose
// data span [xlo, xhi] x [ylo, yhi] (widened to round ticks).
func (s *svgWriter) newPanel(x, y, w, h float64, title string, xlo, xhi, ylo, yhi float64, xlabel, ylabel string) *panel {
	xt, xlo, xhi := niceTicks(xlo, xhi, 6)
	labels := make([]string, len(xt))
	for i, v := range xt {
		labels[i] = tickLabel(v)
	}
	return s.frame(x, y, w, h, title, axis{xlo, xhi, x, x + w, xlabel}, xt, labels, ylo, yhi, ylabel)
}

// newCategoryPanel is newPanel with one x position per category (0, 1,
// ...), each labelled with its name.
func (s *svgWriter) newCategoryPanel(x, y, w, h float64, title string, cats []string, ylo, yhi float64, xlabel, ylabel string) *panel {
	xt := make([]float64, len(cats))
	for i := range cats {
		xt[i] = float64(i)
	}
	return s.frame(x, y, w, h, title, axis{-0.5, float64(len(cats)) - 0.5, x, x + w, xlabel}, xt, cats, ylo, yhi, ylabel)
}

func (s *svgWriter) frame(x, y, w, h float64, title string, xa axis, xt []float64, xlabels []string, ylo, yhi float64, ylabel string) *panel {
	yt, ylo, yhi := niceTicks(ylo, yhi, 5)
	p := &panel{x: x, y: y, w: w, h: h, xa: xa, ya: axis{ylo, yhi, y + h, y, ylabel}}
	s.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#444"/>`+"\n", x, y, w, h)
	for i, v := range xt {
		px := p.xa.at(v)
		s.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", px, y, px, y+h)
		s.text(px, y+h+14, "middle", "", xlabels[i])
	}
	for _, v := range yt {
		py := p.ya.at(v)
		s.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x, py, x+w, py)
		s.text(x-4, py+4, "end", "", tickLabel(v))
	}
	s.text(x+w/2, y+h+32, "middle", "", xa.label)
	s.text(x-42, y+h/2, "middle", fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, x-42, y+h/2), ylabel)
	s.text(x+w/2, y-8, "middle", ` font-weight="bold"`, title)
	return p
}

// line draws a polyline of (xs[i], ys[i]).
func (s *svgWriter) line(p *panel, xs, ys []float64, col string) {
	s.printf(`<polyline fill="none" stroke="%s" stroke-width="1.3" points="`, col)
	for i := range xs {
		s.printf("%.1f,%.1f ", p.xa.at(xs[i]), p.ya.at(ys[i]))
	}
	s.printf(`"/>` + "\n")
}

// bar draws a bar from y=0 to v over [x0, x1] in data units.
func (s *svgWriter) bar(p *panel, x0, x1, v float64, col string) {
	top, base := p.ya.at(v), p.ya.at(math.Max(0, p.ya.lo))
	s.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n",
		p.xa.at(x0), math.Min(top, base), math.Abs(p.xa.at(x1)-p.xa.at(x0)), math.Abs(base-top), col)
}

// legend lists names with their colours in the panel's top-right corner.
func (s *svgWriter) legend(p *panel, names []string) {
	if len(names) < 2 {
		return
	}
	w := legendWidth(names)
	s.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="white" fill-opacity="0.85" stroke="#aaa"/>`+"\n",
		p.x+p.w-w-4, p.y+2, w, 14*len(names)+4)
	s.legendAt(p.x+p.w-w, p.y+12, names, false)
}

// legendWidth estimates the width of a legend box (11 px sans-serif).
func legendWidth(names []string) float64 {
	longest := 0
	for _, n := range names {
		longest = max(longest, len([]rune(n)))
	}
	return 22 + 6.2*float64(longest)
}

// legendAt writes colour swatches and names from (x, y), one a line, or in
// a row when across.
func (s *svgWriter) legendAt(x, y float64, names []string, across bool) {
	for i, n := range names {
		s.printf(`<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>`+"\n", x, y-9, colour(i))
		s.text(x+14, y, "start", "", n)
		if across {
			x += legendWidth([]string{n}) + 10
		} else {
			y += 14
		}
	}
}
