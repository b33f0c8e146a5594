package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// helperArgsEnv makes TestAllocServeHelper run `hpcsched alloc serve` with
// these arguments (one per line) in a child process the kill test kills.
const helperArgsEnv = "HPCSCHED_ALLOC_SERVE_HELPER"

func TestAllocServeHelper(t *testing.T) {
	args := os.Getenv(helperArgsEnv)
	if args == "" {
		t.Skip("run by the kill test in a child process")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// kill -9 under load, on the file store and (when HPCSCHED_TEST_PG_DSN is
// set) on PostgreSQL: after a restart every pre-debit that was answered
// 201 is there, the allocation is not overdrawn and its parts add up.
func TestAllocKill9KeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills servers: not under -short")
	}
	dir := t.TempDir()
	tokens := tokensFile(t, "root-tok-0123456789 0 0 superuser\n")
	stores := map[string][]string{"file": {"--store", filepath.Join(dir, "ledger.json")}}
	if dsn := os.Getenv("HPCSCHED_TEST_PG_DSN"); dsn != "" {
		stores["postgresql"] = []string{"--dsn", freshPG(t, dsn)}
	}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			addr := freeAddr(t)
			args := append([]string{"alloc", "serve", "--listen", addr, "--tokens", tokens}, store...)
			base := "http://" + addr
			child := startChild(t, args, base)
			if name == "file" { // a second server on the ledger is refused, naming the first
				code, _, errOut := runCmd(t, append([]string{"alloc", "serve", "--listen", "127.0.0.1:0", "--tokens", tokens}, store...)...)
				require.Equal(t, 2, code)
				require.Contains(t, errOut, fmt.Sprintf("in use by pid %d", child.Process.Pid))
			}
			require.Equal(t, 201, send(t, base, "root-tok-0123456789", "POST", "/project", `{"gname":"lab","gid":1,"account":"lab"}`))
			require.Equal(t, 201, send(t, base, "root-tok-0123456789", "POST", "/alloc", `{"project_id":1,"resource":"CPU","start":"2020-01-01T00:00:00Z","end":"2120-01-01T00:00:00Z"}`))
			require.Equal(t, 201, send(t, base, "root-tok-0123456789", "POST", "/alloc/1/credit", `{"amount":3000}`))
			acked := hammerUntilKilled(t, base, child)
			startChild(t, args, base)
			for _, id := range acked {
				require.Equal(t, 200, send(t, base, "root-tok-0123456789", "GET", fmt.Sprintf("/job/%d", id), ""), "acknowledged job %d lost", id)
			}
			var v httpapi.AllocView
			getJSON(t, base+"/alloc/1", &v)
			require.GreaterOrEqual(t, v.Balance, int64(0))
			require.Equal(t, v.Credits-v.Debited-v.Pending, v.Balance)
			require.GreaterOrEqual(t, v.Pending, int64(10*len(acked)), "every acknowledged pre-debit is still held")
			t.Logf("%s: %d pre-debits acknowledged before kill -9, all kept; balance %+v", name, len(acked), v)
		})
	}
}

// hammerUntilKilled pre-debits 10-SU jobs from 8 clients and kills the
// server with SIGKILL meanwhile; it returns the ids answered 201.
func hammerUntilKilled(t *testing.T, base string, child *exec.Cmd) []allocation.JobID {
	var mu sync.Mutex
	var acked []allocation.JobID
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id := next.Add(1)
				body := fmt.Sprintf(`{"job_id":%d,"uid":1,"account":"lab","resource":"CPU","amount":10}`, id)
				req, _ := http.NewRequest("POST", base+"/job", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer root-tok-0123456789")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // killed
				}
				resp.Body.Close()
				if resp.StatusCode == 201 {
					mu.Lock()
					acked = append(acked, allocation.JobID(id))
					mu.Unlock()
				}
			}
		}()
	}
	for next.Load() < 60 {
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, child.Process.Kill()) // SIGKILL
	child.Wait()
	wg.Wait()
	return acked
}

// startChild runs args in a child process and waits until base answers.
func startChild(t *testing.T, args []string, base string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestAllocServeHelper$")
	cmd.Env = append(os.Environ(), helperArgsEnv+"="+strings.Join(args, "\n"))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		require.Less(t, i, 1000, "the server never answered")
		if resp, err := http.Get(base + "/project"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func getJSON(t *testing.T, u string, v any) {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer root-tok-0123456789")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// freshPG creates an empty database on dsn's server, dropped at the end.
func freshPG(t *testing.T, dsn string) string {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer admin.Close(ctx)
	name := fmt.Sprintf("hpcsched_cmd_%d_%d", os.Getpid(), time.Now().UnixNano())
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err, "HPCSCHED_TEST_PG_DSN must be a postgres:// URL here")
	u.Path = "/" + name
	return u.String()
}
