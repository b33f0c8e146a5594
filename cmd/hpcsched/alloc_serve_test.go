package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// serveWith runs alloc serve with args (a ledger file is added) and
// returns its address; the server stops at the test's end.
func serveWith(t *testing.T, log io.Writer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	args = append(args, "--store", filepath.Join(t.TempDir(), "ledger.json"))
	go func() { done <- allocServe(ctx, args, io.Discard, log, func(a string) { addr <- a }) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case a := <-addr:
		return a
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

func TestAllocServeRefusesClearTextOffLoopback(t *testing.T) {
	tokens := tokensFile(t, "t0123456789abcdef 0 0 superuser\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"--listen", "[::]:0"}, "not a loopback address"},
		{[]string{"--listen", ":0"}, "not a loopback address"},
		{[]string{"--tls-cert", "c.pem"}, "go together"},
	} {
		code, _, errOut := runCmd(t, append([]string{"alloc", "serve", "--tokens", tokens, "--store", "x"}, tc.args...)...)
		require.Equal(t, 2, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	require.True(t, loopback("127.0.0.1:8080"))
	require.True(t, loopback("[::1]:8080"))
	require.True(t, loopback("localhost:1"))
	require.False(t, loopback("10.0.0.1:8080"))
}

// HTTPS with the given certificate; the log says what is served where.
func TestAllocServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool := selfSigned(t, cert, key)
	var log syncWriter
	addr := serveWith(t, &log, "--listen", "127.0.0.1:0", "--tokens", tokensFile(t, "u 5 5 standard\n"),
		"--tls-cert", cert, "--tls-key", key)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest("GET", "https://"+addr+"/project", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "bearer u")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Contains(t, log.String(), "serving the allocation ledger on https://"+addr)
}

// SIGHUP reloads the tokens file; a bad file keeps the tokens in use.
func TestAllocServeReloadsTokensOnSIGHUP(t *testing.T) {
	tokens := tokensFile(t, "old 5 5 standard\n")
	var log syncWriter
	addr := serveWith(t, &log, "--listen", "127.0.0.1:0", "--tokens", tokens)
	status := func(token string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/project", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, 200, status("old"))
	require.NoError(t, os.WriteFile(tokens, []byte("new 5 5 standard\n"), 0o600))
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	for i := 0; status("new") != 200; i++ {
		require.Less(t, i, 500, "the new token was never accepted")
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 401, status("old"))
	require.NoError(t, os.WriteFile(tokens, nil, 0o600)) // empty: refused, "new" stays
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	for i := 0; !strings.Contains(log.String(), "not reloaded"); i++ {
		require.Less(t, i, 500, "the bad file was never reported")
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 200, status("new"))
	require.Contains(t, log.String(), "serving the allocation ledger on http://"+addr+" from ledger file")
	require.Contains(t, log.String(), `access 127.0.0.1`)
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM and
// returns a pool trusting it.
func selfSigned(t *testing.T, certPath, keyPath string) *x509.CertPool {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// syncWriter is a log buffer the server writes while the test reads.
type syncWriter struct {
	mu sync.Mutex
	w  strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// An operator builds a ledger from nothing with hpcsched commands only.
func TestAllocOperatorCommands(t *testing.T) {
	url, _, _ := startAlloc(t)
	tokenFile := tokensFile(t, "root-tok-0123456789\n")
	admin := func(args ...string) (int, string, string) {
		return runCmd(t, append(append([]string{"alloc"}, args...), "--server", url, "--token-file", tokenFile)...)
	}
	code, out, errOut := admin("project", "create", "--name", "lab", "--gid", "1001")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "project 1: group lab (gid 1001), account lab\n", out)
	code, out, errOut = admin("create", "--account", "lab", "--category", "startup", "--start", "2020-01-01", "--end", "2120-01-01")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "allocation 1: startup CPU for lab, [2020-01-01, 2120-01-01)\n", out)
	code, out, errOut = admin("credit", "1", "--amount", "500", "--comment", "grant", "--json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"amount":500`)
	require.Equal(t, 201, send(t, url, "root-tok-0123456789", "POST", "/job", `{"job_id":7,"uid":500,"account":"lab","resource":"CPU","amount":60}`))
	code, out, errOut = admin("job", "cancel", "7")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "job 7: pre-debit returned\n", out)

	t.Setenv("HPCSCHED_TOKEN", "user-tok")
	code, out, errOut = runCmd(t, "alloc", "balance", "--server", url)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []string{"1", "lab", "startup", "CPU", "2020-01-01", "2120-01-01", "500", "0", "0", "500"}, strings.Fields(lines(out)[1]))

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--account", "nobody", "--start", "2020-01-01", "--end", "2021-01-01"}, "no project has account"},
		{[]string{"create", "--account", "lab", "--start", "soon", "--end", "2021-01-01"}, "neither YYYY-MM-DD"},
		{[]string{"credit", "1"}, "positive --amount"},
		{[]string{"credit", "x", "--amount", "5"}, "not an allocation id"},
		{[]string{"job", "cancel", "7"}, "404"},
		{[]string{"project", "create", "--gid", "5"}, "--name is required"},
	} {
		code, _, errOut := admin(tc.args...)
		require.Equal(t, 2, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}

// serve bills the partitions it is given (GET /sitefactor) and enforces
// the site's categories.
func TestAllocServePartitionsAndCategories(t *testing.T) {
	var log syncWriter
	addr := serveWith(t, &log, "--listen", "127.0.0.1:0", "--tokens", tokensFile(t, "root-tok-0123456789 0 0 superuser\n"),
		"--partition", "standard=CPU:cpu=1,mem=0.5", "--partition", "gpu=GPU", "--categories", "startup=1000,research=0")
	base := "http://" + addr
	tok := "root-tok-0123456789"
	require.Equal(t, 201, send(t, base, tok, "POST", "/project", `{"gname":"lab","gid":1,"account":"lab"}`))
	require.Equal(t, 400, send(t, base, tok, "POST", "/alloc", `{"project_id":1,"category":"hobby","resource":"CPU","start":"2020-01-01T00:00:00Z","end":"2120-01-01T00:00:00Z"}`))
	require.Equal(t, 201, send(t, base, tok, "POST", "/alloc", `{"project_id":1,"category":"startup","resource":"CPU","start":"2020-01-01T00:00:00Z","end":"2120-01-01T00:00:00Z"}`))
	require.Equal(t, 400, send(t, base, tok, "POST", "/alloc/1/credit", `{"amount":1001}`), "past the startup limit")
	require.Equal(t, 201, send(t, base, tok, "POST", "/alloc/1/credit", `{"amount":1000}`))
	require.Equal(t, 200, send(t, base, tok, "GET", "/sitefactor?account=lab&partition=standard", ""))
	require.Equal(t, 404, send(t, base, tok, "GET", "/sitefactor?account=lab&partition=gpu", ""), "no GPU allocation")
	require.Contains(t, log.String(), "2 partitions billed, categories research,startup")
	for _, bad := range []string{"standard", "standard=TPU", "s=CPU:cpu=x", "s=CPU:disk=1", "s=CPU:cpu=1,mem=0.5,cpu=2"} {
		code, _, errOut := runCmd(t, "alloc", "serve", "--tokens", "t", "--store", "x", "--partition", bad)
		require.Equal(t, 2, code, bad)
		require.Contains(t, errOut, "--partition", bad)
	}
}
