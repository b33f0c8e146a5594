package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
)

const allocUsage = `usage: hpcsched alloc <command> [flags]

commands:
  serve      serve the allocation ledger's REST API (/project, /alloc, /job, /failure)
  balance    allocations and their balances
  activity   SU used per user per allocation (--history: every credit and debit)
  failures   jobs refused for insufficient balance, explained
  check      read a ledger file (--store) and report damage, changing nothing
  repair     keep what is intact in a damaged ledger file; the damaged journal is kept beside
`

func allocCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("%s", allocUsage)
	}
	switch args[0] {
	case "serve":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return allocServe(ctx, args[1:], stdout, stderr, nil)
	case "balance", "activity", "failures":
		return allocClient(args[0], args[1:], stdout)
	case "check", "repair":
		return allocFile(args[0], args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, allocUsage)
		return nil
	}
	return usagef("alloc: unknown command %q\n%s", args[0], allocUsage)
}

// allocServe runs the API until ctx ends (SIGTERM), then stops accepting
// and waits for the requests in flight: every write is stored before its
// response is sent, so none that was acknowledged is lost. ready, when
// set, receives the listening address. Help goes to stdout, the server's
// log lines to stderr.
func allocServe(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	var listen, tokens, storePath, dsn string
	var grace time.Duration
	fs := newFlagSet("alloc serve", "--tokens FILE (--store FILE | --dsn DSN) [flags]")
	fs.String(&listen, "listen=ADDR", "127.0.0.1:8080", "address to listen on")
	fs.String(&tokens, "tokens=FILE", "", "bearer-token file: \"token uid gid[,gid...] role\" per line (required)")
	fs.String(&storePath, "store=FILE", "", "ledger file (created when absent)")
	fs.String(&dsn, "dsn=DSN", "", "PostgreSQL connection string (instead of --store)")
	fs.Duration(&grace, "grace", 30*time.Second, "how long shutdown waits for requests in flight")
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	switch {
	case tokens == "":
		return usagef("alloc serve: --tokens is required")
	case (storePath == "") == (dsn == ""):
		return usagef("alloc serve: give exactly one of --store and --dsn")
	}
	auth, err := httpapi.LoadTokens(tokens)
	if err != nil {
		return usagef("alloc serve: --tokens %v", err)
	}
	store, closeStore, err := openAllocStore(ctx, storePath, dsn)
	if err != nil {
		return err
	}
	defer closeStore()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: httpapi.New(allocation.New(store), auth, time.Now),
		// A client that connects and idles, or trickles its request or
		// reads the answer slowly, holds a connection for bounded time.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintln(stderr, "hpcsched alloc: listening on", ln.Addr())
	if ready != nil {
		ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "hpcsched alloc: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-done
	return nil
}
