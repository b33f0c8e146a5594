// Package stdout captures what a function prints, for the tests of the
// example programs, whose main functions print.
package stdout

import (
	"io"
	"os"
	"testing"
)

// Capture runs f with os.Stdout redirected and returns what it wrote.
func Capture(tb testing.TB, f func()) string {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { // drain while f writes, so a large output cannot block it
		data, _ := io.ReadAll(r)
		done <- data
	}()
	defer func() { os.Stdout = old }()
	f()
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return string(<-done)
}
