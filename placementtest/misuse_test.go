package placementtest_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hpcsched/hpcsched/placementtest"
)

// helperTB records which functions marked themselves helpers before the
// first Fatalf, so a failure is reported at the caller's line.
type helperTB struct {
	testing.TB
	helpers []string
	msg     string
}

func (h *helperTB) Helper() {
	pc, _, _, _ := runtime.Caller(1)
	name := runtime.FuncForPC(pc).Name()
	h.helpers = append(h.helpers, name[strings.LastIndex(name, ".")+1:])
}

func (h *helperTB) Fatalf(format string, args ...any) {
	h.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fatalOf runs f with a helperTB and returns it once f has stopped.
func fatalOf(t *testing.T, f func(tb testing.TB)) *helperTB {
	tb := &helperTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(tb)
	}()
	<-done
	return tb
}

// Each sentence that can stop a test marks itself and what it calls as
// helpers, so the failure names the administrator's line, not the library's.
func TestSentencesThatFailAreHelpers(t *testing.T) {
	site := placementtest.Load(t, "testdata/site.conf")
	for _, c := range []struct {
		name string
		f    func(tb testing.TB)
		want []string
	}{
		{"Down", func(tb testing.TB) { site.Down(tb, "nosuch1") }, []string{"Down", "state"}},
		{"Drain", func(tb testing.TB) { site.Drain(tb, "nosuch1") }, []string{"Drain", "state"}},
		{"Running", func(tb testing.TB) { site.Running(tb, "nosuch1") }, []string{"Running"}},
		{"Reserve", func(tb testing.TB) { site.Reserve(tb, "nosuch1", site.Now(), time.Hour) }, []string{"Reserve"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := fatalOf(t, c.f)
			assert.Contains(t, tb.msg, "nosuch1")
			assert.Equal(t, c.want, tb.helpers)
		})
	}
}

// A reservation that does not end after it starts withholds nothing; it is
// refused, naming both ends, instead of being kept as an empty window.
func TestReserveRefusesAnEmptyWindow(t *testing.T) {
	site := placementtest.Load(t, "testdata/site.conf")
	for _, length := range []time.Duration{-time.Hour, 0} {
		tb := fatalOf(t, func(tb testing.TB) { site.Reserve(tb, "old[1-2]", site.Now(), length) })
		assert.Contains(t, tb.msg, "old[1-2]", "length %v", length)
		assert.Contains(t, tb.msg, "not after its start", "length %v", length)
	}
	assert.Empty(t, fatalOf(t, func(tb testing.TB) { site.Reserve(tb, "old[1-2]", site.Now(), time.Nanosecond) }).msg)
}
