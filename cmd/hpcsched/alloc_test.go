package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

// startAlloc runs alloc serve on a ledger file in a temporary directory
// and returns its URL, the file, and a stop function that cancels it (as
// SIGTERM does) and waits for it to return.
func startAlloc(t *testing.T) (string, string, func() error) {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(tokens, []byte("root-tok-0123456789 0 0 superuser\nuser-tok 500 1001 standard\n"), 0o600))
	store := filepath.Join(dir, "ledger.json")
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- allocServe(ctx, []string{"--listen", "127.0.0.1:0", "--tokens", tokens, "--store", store}, io.Discard, io.Discard, func(a string) { addr <- a })
	}()
	var url string
	select {
	case a := <-addr:
		url = "http://" + a
	case err := <-done:
		t.Fatal(err)
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return url, store, stop
}

func send(t *testing.T, url, token, method, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestAllocServeAndTables(t *testing.T) {
	url, _, _ := startAlloc(t)
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/project", `{"gname":"lab","gid":1001,"account":"lab"}`))
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/alloc", `{"project_id":1,"category":"startup","resource":"CPU","start":"2020-01-01T00:00:00Z","end":"2120-01-01T00:00:00Z"}`))
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/alloc/1/credit", `{"amount":100}`))
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/job", `{"job_id":1,"uid":500,"account":"lab","resource":"CPU","amount":60,"units":1}`))
	require.Equal(t, 200, send(t, url, "root-tok-0123456789", "PUT", "/job/1", `{"elapsed":1200,"outcome":"completed"}`))
	require.Equal(t, 402, send(t, url, "root-tok-0123456789", "POST", "/job", `{"job_id":2,"uid":500,"account":"lab","resource":"CPU","amount":90}`))

	code, out, errOut := runCmd(t, "alloc", "balance", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []string{"ALLOC", "ACCOUNT", "CATEGORY", "RESOURCE", "START", "END", "CREDITS", "DEBITED", "PENDING", "BALANCE"}, strings.Fields(lines(out)[0]))
	require.Equal(t, []string{"1", "lab", "startup", "CPU", "2020-01-01", "2120-01-01", "100", "20", "0", "80"}, strings.Fields(lines(out)[1]))

	code, out, errOut = runCmd(t, "alloc", "activity", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []string{"1", "lab", "CPU", "500", "1", "20"}, strings.Fields(lines(out)[1]))

	code, out, _ = runCmd(t, "alloc", "activity", "--history", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code)
	require.Len(t, lines(out), 5, "header, credit, pre-debit, release, debit")

	code, out, errOut = runCmd(t, "alloc", "failures", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, lines(out)[1], "needed 90 SU, CPU allocation 1 had 80")
	for cmd, want := range map[string]string{ // --json: the same rows as a JSON array
		"failures":                 `[{"account":"lab","resource":"CPU","job_id":2,"attempt":1,"allocation_id":1,"uid":500,"amount":90,"balance":80`,
		"activity":                 `[{"account":"lab","resource":"CPU","allocation_id":1,"uid":500,"amount":20,"jobs":1}]`,
		"activity --history":       `[{"account":"lab","id":1,"allocation_id":1,"kind":"credit","amount":100`,
		"balance --account nobody": `[]`,
	} {
		code, out, errOut = runCmd(t, append(append([]string{"alloc"}, strings.Fields(cmd)...), "--json", "--server", url, "--token", "user-tok")...)
		require.Equal(t, 0, code, errOut)
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, []byte(out)), out)
		require.True(t, strings.HasPrefix(compact.String(), want), "%s --json: %s", cmd, compact.String())
	}

	code, out, errOut = runCmd(t, "alloc", "usage", "--from", "2000-01-01", "--to", "2200-01-01", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "allocation_id,account,category,resource,uid,from,to,jobs,su", lines(out)[0])
	require.Equal(t, "1,lab,startup,CPU,500,2000-01-01T00:00:00Z,2200-01-01T00:00:00Z,1,20", lines(out)[1])
	code, out, _ = runCmd(t, "alloc", "usage", "--from", "2000-01-01", "--to", "2001-01-01", "--format", "json", "--server", url, "--token", "user-tok")
	require.Equal(t, 0, code)
	require.Equal(t, "[]\n", out, "no debit in that period")

	code, _, errOut = runCmd(t, "alloc", "balance", "--server", url, "--token", "wrong")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "401")
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// Stopping the server (what SIGTERM does) while writes are in flight loses
// none that was acknowledged: every pre-debit answered 201 is in the
// ledger file afterwards.
func TestAllocServeShutdownKeepsAcknowledgedWrites(t *testing.T) {
	url, store, stop := startAlloc(t)
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/project", `{"gname":"lab","gid":1001,"account":"lab"}`))
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/alloc", `{"project_id":1,"resource":"CPU","start":"2020-01-01T00:00:00Z","end":"2120-01-01T00:00:00Z"}`))
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/alloc/1/credit", `{"amount":100000}`))
	var mu sync.Mutex
	acked := map[int]bool{}
	var wg sync.WaitGroup
	started := make(chan struct{})
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 1000 {
				id := w*1000 + k + 1
				if k == 3 && w == 0 {
					close(started)
				}
				req, _ := http.NewRequest("POST", url+"/job", strings.NewReader(fmt.Sprintf(`{"job_id":%d,"uid":1,"account":"lab","resource":"CPU","amount":1}`, id)))
				req.Header.Set("Authorization", "Bearer root-tok-0123456789")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // the server has gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 201 {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	<-started
	require.NoError(t, stop())
	wg.Wait()
	s, err := allocation.OpenFile(store)
	require.NoError(t, err)
	jobs, err := s.Jobs(context.Background(), 1)
	require.NoError(t, err)
	stored := map[int]bool{}
	for _, j := range jobs {
		stored[int(j.ID)] = true
	}
	require.NotEmpty(t, acked)
	for id := range acked {
		require.True(t, stored[id], "acknowledged job %d is in the ledger", id)
	}
}

func TestAllocUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alloc"}, "usage: hpcsched alloc"},
		{[]string{"alloc", "frobnicate"}, "unknown command"},
		{[]string{"alloc", "serve", "--store", "x"}, "--tokens is required"},
		{[]string{"alloc", "serve", "--tokens", "t"}, "exactly one of --store and --dsn"},
		{[]string{"alloc", "serve", "--tokens", "t", "--store", "x", "--dsn", "y"}, "exactly one of --store and --dsn"},
		{[]string{"alloc", "serve", "--tokens", "/nonexistent/tokens", "--store", "x"}, "--tokens"},
		{[]string{"alloc", "balance", "extra"}, "unexpected argument"},
		{[]string{"alloc", "serve", "--tokens", tokensFile(t, "t0123456789abcdef 0 0 superuser\n"), "--store", "/dev/zero"}, "not a regular file"},
		{[]string{"alloc", "serve", "--tokens", tokensFile(t, "# no token\n"), "--store", "x"}, "no token lines"},
		{[]string{"alloc", "balance", "--server", "http://127.0.0.1:1"}, "connect"},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		require.Equal(t, 2, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}

// tokensFile writes a tokens file of mode 0600 and returns its path.
func tokensFile(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}
