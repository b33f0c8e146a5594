//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Endless inputs end with a clear error at the reader's budget, not when
// memory runs out.
func TestSimulateEndlessInputs(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	code, _, errOut := runCmd(t, "simulate", "--workload", "/dev/zero")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "line 1: the line is longer than")
	code, _, errOut = runCmd(t, "simulate", "--ledger", "/dev/zero")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--ledger /dev/zero: more than")
}

// --limit 10 on a trace that never ends (a pipe fed without end) reads
// ten jobs and answers.
func TestSimulateLimitStreams(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "endless.swf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	written := make(chan int, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			written <- 0
			return
		}
		defer f.Close()
		fmt.Fprint(f, "; MaxNodes: 100\n; MaxProcs: 100\n")
		n := 0
		for ; n < 10_000_000; n++ { // stops when the reader closes the pipe
			if _, err := fmt.Fprintf(f, "%d %d -1 100 1 -1 -1 1 200 -1 1 1 1 -1 -1 1 -1 -1\n", n+1, n); err != nil {
				break
			}
		}
		written <- n
	}()
	code, out, errOut := runCmd(t, "simulate", "--workload", fifo, "--limit", "10", "--backfill=easy", "--csv")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, ",10,10,0,0,") // jobs, started, rejected, stuck
	assert.Less(t, <-written, 10_000_000, "the reader stopped reading")
}
