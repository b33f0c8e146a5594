package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hpcsched/hpcsched/allocation/httpapi"
)

// serverLog is alloc serve's log on stderr, one line per event.
type serverLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *serverLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s hpcsched alloc: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// access is the access log line of one request.
func (l *serverLog) access(r httpapi.AccessRecord) {
	who := "-"
	if r.UID != nil {
		who = fmt.Sprintf("uid=%d role=%s", *r.UID, r.Role)
		if r.ActAs != "" {
			who += fmt.Sprintf(" act-as=%q", r.ActAs)
		}
	}
	line := fmt.Sprintf("access %s %s %q %d %s %s", r.Remote, r.Method, r.Path, r.Status, who, r.Duration.Round(time.Microsecond))
	if r.Cause != "" {
		line += fmt.Sprintf(" cause=%q", r.Cause)
	}
	l.printf("%s", line)
}

// reloadingTokens is the token file, read again on SIGHUP.
type reloadingTokens struct {
	path string
	cur  atomic.Pointer[httpapi.TokenFile]
}

func (t *reloadingTokens) reload() error {
	tf, err := httpapi.LoadTokens(t.path)
	if err != nil {
		return err
	}
	t.cur.Store(tf)
	return nil
}

func (t *reloadingTokens) Authenticate(r *http.Request) (httpapi.Identity, error) {
	return t.cur.Load().Authenticate(r)
}

// reloadOnHUP reloads the tokens on each SIGHUP until the returned stop
// is called; a file that does not load keeps the tokens in use.
func (t *reloadingTokens) reloadOnHUP(l *serverLog) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := t.reload(); err != nil {
					l.printf("SIGHUP: tokens not reloaded, the previous ones stay in use: %v", err)
				} else {
					l.printf("SIGHUP: tokens reloaded from %s", t.path)
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}
