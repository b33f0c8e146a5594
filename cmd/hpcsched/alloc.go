package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
	"github.com/hpcsched/hpcsched/allocation/pgstore"
	"github.com/hpcsched/hpcsched/sbatch"
)

const allocUsage = `usage: hpcsched alloc <command> [flags]

Client commands take --server URL ($HPCSCHED_ALLOC_SERVER) and the bearer
token from --token-file FILE or $HPCSCHED_TOKEN.

commands:
  serve           serve the allocation ledger's REST API (/project, /alloc, /job, /failure, /audit)
  project create  a project: a workgroup (Unix group and gid) and its Slurm account
  create          an allocation of a project's account: resource, category and period
  credit          add service units to an allocation
  job cancel      return the pre-debit of a job that never started
  usage           SU debited per allocation and user in a period, as CSV or JSON
  balance         allocations and their balances
  activity        SU used per user per allocation (--history: every credit and debit)
  failures        jobs refused for insufficient balance, explained
  check           read a ledger file (--store) and report damage, changing nothing
  repair          keep what is intact in a damaged ledger file; the damaged journal is kept beside
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
	case "project":
		return allocProjectCmd(args[1:], stdout)
	case "create":
		return allocCreateCmd(args[1:], stdout)
	case "credit":
		return allocCreditCmd(args[1:], stdout)
	case "job":
		return allocJobCmd(args[1:], stdout)
	case "usage":
		return allocUsageCmd(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, allocUsage)
		return nil
	}
	return usagef("alloc: unknown command %q\n%s", args[0], allocUsage)
}

// serveFlags are alloc serve's options.
type serveFlags struct {
	listen, tokens, storePath, dsn string
	tlsCert, tlsKey, audit         string
	insecure                       bool
	grace                          time.Duration
	partitions                     map[string]allocation.Partition
	categories                     map[string]allocation.Category
}

func parseServeFlags(args []string, stdout io.Writer) (serveFlags, error) {
	var f serveFlags
	fs := newFlagSet("alloc serve", "--tokens FILE (--store FILE | --dsn DSN) [flags]")
	fs.String(&f.listen, "listen=ADDR", "127.0.0.1:8080", "address to listen on")
	fs.String(&f.tokens, "tokens=FILE", "", "bearer-token file (mode 0600): \"token uid gid[,gid...] role\" per line (required; SIGHUP reloads it)")
	fs.String(&f.storePath, "store=FILE", "", "ledger file (created when absent)")
	fs.String(&f.dsn, "dsn=DSN", "", "PostgreSQL connection string (instead of --store)")
	fs.String(&f.tlsCert, "tls-cert=FILE", "", "serve HTTPS with this certificate (PEM; with --tls-key)")
	fs.String(&f.tlsKey, "tls-key=FILE", "", "the certificate's private key (PEM)")
	fs.Bool(&f.insecure, "insecure", "allow plain HTTP on a non-loopback address (tokens then cross the network in clear)")
	fs.String(&f.audit, "audit=FILE", "", "append an audit record of every change to FILE (GET /audit reads it)")
	fs.Duration(&f.grace, "grace", 30*time.Second, "how long shutdown waits for requests in flight")
	f.partitions = map[string]allocation.Partition{}
	fs.add("partition", "NAME=CPU|GPU[:cpu=W,mem=W,gpu=W]", "what a partition bills, with MAX_TRES weights (mem per GiB); repeat per partition (GET /sitefactor)",
		sbatch.Flag{Value: true, Set: func(v string) error { return parsePartition(v, f.partitions) }})
	fs.add("categories", "NAME=MAX_SU,...", "the site's allocation categories and their credit limits (0: none); enforced on create and credit",
		sbatch.Flag{Value: true, Set: func(v string) (err error) { f.categories, err = allocation.ParseCategories(v); return err }})
	if err := fs.NoOperands(args, stdout); err != nil {
		return f, err
	}
	switch {
	case f.tokens == "":
		return f, usagef("alloc serve: --tokens is required")
	case (f.storePath == "") == (f.dsn == ""):
		return f, usagef("alloc serve: give exactly one of --store and --dsn")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return f, usagef("alloc serve: --tls-cert and --tls-key go together")
	case f.tlsCert == "" && !f.insecure && !loopback(f.listen):
		return f, usagef("alloc serve: --listen %s is not a loopback address: give --tls-cert and --tls-key, or --insecure to send tokens in clear", f.listen)
	}
	return f, nil
}

// loopback reports whether addr's host is a loopback address or name
// (an empty host listens on every interface: not loopback).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// allocServe runs the API until ctx ends (SIGTERM), then stops accepting
// and waits for the requests in flight: every write is stored before its
// response is sent, so none that was acknowledged is lost. SIGHUP reloads
// the tokens file (a bad file keeps the tokens in use). ready, when set,
// receives the listening address. Help goes to stdout, the server's log
// (what it serves, an access line per request, reloads) to stderr.
func allocServe(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	f, err := parseServeFlags(args, stdout)
	if err != nil {
		return err
	}
	auth := &reloadingTokens{path: f.tokens}
	if err := auth.reload(); err != nil {
		return usagef("alloc serve: --tokens %v", err)
	}
	store, closeStore, err := openAllocStore(ctx, f.storePath, f.dsn)
	if err != nil {
		return err
	}
	defer closeStore()
	opts := []allocation.Option{allocation.WithPartitions(f.partitions)}
	if f.categories != nil {
		opts = append(opts, allocation.WithCategories(f.categories))
	}
	h := httpapi.New(allocation.New(store, opts...), auth, time.Now)
	logger := &serverLog{w: stderr}
	h.SetAccessLog(logger.access)
	if f.audit != "" {
		audit, err := httpapi.OpenAuditLog(f.audit)
		if err != nil {
			return fmt.Errorf("--audit: %w", err)
		}
		defer audit.Close()
		h.SetAudit(audit)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	scheme := "http"
	if f.tlsCert != "" {
		scheme = "https"
	}
	logger.printf("serving the allocation ledger on %s://%s from %s (tokens %s; %d partitions billed, categories %s)",
		scheme, ln.Addr(), storeName(f), f.tokens, len(f.partitions), categoryNames(f.categories))
	if ready != nil {
		ready(ln.Addr().String())
	}
	stopHUP := auth.reloadOnHUP(logger)
	defer stopHUP()
	return runServer(ctx, newHTTPServer(h), ln, f, logger)
}

// parsePartition reads NAME=CPU|GPU[:cpu=W,mem=W,gpu=W] into ps.
func parsePartition(v string, ps map[string]allocation.Partition) error {
	name, rule, ok := strings.Cut(v, "=")
	res, weights, _ := strings.Cut(rule, ":")
	r, err := allocation.ParseResource(res)
	if !ok || name == "" || err != nil {
		return fmt.Errorf("--partition %q is not NAME=CPU|GPU[:cpu=W,mem=W,gpu=W]", v)
	}
	p := allocation.Partition{Resource: r}
	if weights != "" {
		p.Weights = &allocation.Weights{}
		seen := map[string]bool{}
		for kv := range strings.SplitSeq(weights, ",") {
			k, val, _ := strings.Cut(kv, "=")
			if seen[k] { // the last would win silently, and bill other than meant
				return fmt.Errorf("--partition %q: weight %q is given twice", v, k)
			}
			seen[k] = true
			w, err := strconv.ParseFloat(val, 64)
			if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
				return fmt.Errorf("--partition %q: weight %q is not a non-negative number", v, kv)
			}
			switch k {
			case "cpu":
				p.Weights.CPU = w
			case "mem":
				p.Weights.MemGiB = w
			case "gpu":
				p.Weights.GPU = w
			default:
				return fmt.Errorf("--partition %q: %q is not cpu, mem or gpu", v, k)
			}
		}
	}
	if _, dup := ps[name]; dup {
		return fmt.Errorf("--partition %s is given twice", name)
	}
	ps[name] = p
	return nil
}

func categoryNames(cs map[string]allocation.Category) string {
	if cs == nil {
		return "not enforced"
	}
	names := slices.Sorted(maps.Keys(cs))
	return strings.Join(names, ",")
}

func storeName(f serveFlags) string {
	if f.storePath != "" {
		return "ledger file " + f.storePath
	}
	return "PostgreSQL " + pgstore.Target(f.dsn) // never the DSN's user or password
}

func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler: h,
		// A client that connects and idles, or trickles its request or
		// reads the answer slowly, holds a connection for bounded time.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// runServer serves until ctx ends, then shuts down within the grace.
func runServer(ctx context.Context, srv *http.Server, ln net.Listener, f serveFlags, logger *serverLog) error {
	done := make(chan error, 1)
	go func() {
		if f.tlsCert != "" {
			done <- srv.ServeTLS(ln, f.tlsCert, f.tlsKey)
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	logger.printf("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), f.grace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-done
	return nil
}
