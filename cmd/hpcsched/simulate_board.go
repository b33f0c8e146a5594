package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// runBoard reports simulate's runs on stderr: a line as each run ends
// (but for a single run on a terminal) and, on a terminal, a status line redrawn in
// place with the running replays' progress. It also serialises what the
// runs print on stdout, so that a row never lands inside the status line.
type runBoard struct {
	mu       sync.Mutex
	w        io.Writer // nil: report nothing
	live     bool      // w is a terminal: draw the status line
	names    []string  // each cell's name
	finished int
	running  map[int]*runState
	start    time.Time
	drawn    time.Time // when the status line was last drawn
	shown    bool      // the status line is on screen
}

// runState is one running replay's progress.
type runState struct {
	done, total int
	now         time.Duration
	start       time.Time
}

// newBoard reports on stderr when it is a terminal or with --progress,
// never with --quiet.
func newBoard(f *simFlags, cells []cell, stderr io.Writer) *runBoard {
	b := &runBoard{running: map[int]*runState{}, start: time.Now()}
	if f.quiet || !(f.progress || isTerminal(stderr)) {
		return b
	}
	b.w, b.live = stderr, isTerminal(stderr)
	for _, c := range cells {
		// the row's name for a trace, not its path: the status line has
		// room for about two runs' paths (maxStatus)
		name := cellName(c.workload) + " " + c.variant.String()
		if c.seeded && len(f.seeds) > 1 {
			name += fmt.Sprintf(" seed %d", c.seed)
		}
		b.names = append(b.names, name)
	}
	return b
}

// begin marks cell i running; the returned function takes its replay's
// progress (sim.Options.Progress), or is nil when nothing is shown.
func (b *runBoard) begin(i int) func(done, total int, now time.Duration) {
	if !b.live {
		return nil
	}
	st := &runState{start: time.Now()}
	b.mu.Lock()
	b.running[i] = st
	b.mu.Unlock()
	return func(done, total int, now time.Duration) {
		b.mu.Lock()
		defer b.mu.Unlock()
		st.done, st.total, st.now = done, total, now
		if t := time.Now(); t.Sub(b.drawn) >= 100*time.Millisecond {
			b.draw(t)
		}
	}
}

// end records cell i's outcome: print (the rows it completes) runs with
// the status line cleared, then the run's line is written.
func (b *runBoard) end(i int, o cellOut, print func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clearLine()
	print()
	delete(b.running, i)
	b.finished++
	if b.w == nil || (len(b.names) == 1 && b.live) {
		return // one run on a terminal: its bar said it all
	}
	if o.err != nil {
		fmt.Fprintf(b.w, "[%d/%d] %s: %v\n", b.finished, len(b.names), b.names[i], o.err)
	} else {
		fmt.Fprintf(b.w, "[%d/%d] %s: utilization %.1f%%, mean wait %.0f s (%.1f s)\n", b.finished, len(b.names),
			b.names[i], o.row.Utilization, o.row.WaitMean, o.wall.Seconds())
	}
	if len(b.running) > 0 {
		b.draw(time.Now())
	}
}

// close clears the status line.
func (b *runBoard) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clearLine()
}

func (b *runBoard) clearLine() {
	if b.shown {
		fmt.Fprint(b.w, "\r\033[K")
		b.shown = false
	}
}

// maxStatus bounds the status line (in characters) so that it stays on
// one line of a common terminal and \r can redraw it.
const maxStatus = 150

// draw redraws the status line: one replay's bar, or each running
// replay's share done.
func (b *runBoard) draw(t time.Time) {
	if !b.live || len(b.running) == 0 {
		return
	}
	b.drawn = t
	ids := slices.Sorted(func(yield func(int) bool) {
		for i := range b.running {
			if !yield(i) {
				return
			}
		}
	})
	var text string
	if len(ids) == 1 {
		st := b.running[ids[0]]
		text = barText(b.names[ids[0]], st.done, st.total, st.now, t.Sub(st.start))
	} else {
		parts := make([]string, len(ids))
		for k, i := range ids {
			parts[k] = b.names[i] + " " + share(b.running[i])
		}
		text = fmt.Sprintf("%d/%d runs done, %s; %s", b.finished, len(b.names), t.Sub(b.start).Round(time.Second),
			strings.Join(parts, ", "))
	}
	if utf8.RuneCountInString(text) > maxStatus {
		text = string([]rune(text)[:maxStatus-1]) + "…"
	}
	fmt.Fprint(b.w, "\r"+text+"\033[K")
	b.shown = true
}

// share is how far a replay is: a percentage of its jobs, or their
// count when the trace's length is unknown.
func share(st *runState) string {
	if st.total <= 0 && st.done == 0 {
		return "loading"
	}
	if st.total <= 0 {
		return fmt.Sprintf("%d jobs", st.done)
	}
	return fmt.Sprintf("%d%%", 100*min(st.done, st.total)/st.total)
}

// barText is one replay's progress: jobs done, virtual time and an ETA.
func barText(name string, done, total int, now, elapsed time.Duration) string {
	if total <= 0 { // a trace read as it goes: its length is unknown
		return fmt.Sprintf("%s %d jobs started or rejected, virtual time %s, %s", name, done, now.Round(time.Second),
			elapsed.Round(time.Second))
	}
	const width = 30
	n := width * min(done, total) / total
	eta := "?"
	if done > 0 {
		eta = (time.Duration(float64(elapsed) * float64(max(0, total-done)) / float64(done))).Round(time.Second).String()
	}
	return fmt.Sprintf("%s [%s%s] %d/%d jobs, virtual time %s, ETA %s", name, strings.Repeat("#", n),
		strings.Repeat(".", width-n), done, total, now.Round(time.Second), eta)
}
