package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

const tokens = `# token uid gids role
tok-super-0123456789 0 0 superuser
tok-admin-0123456789 10 10 admin
tok-member 500 100,1001 standard
tok-outsider 600 2000 standard
`

// server is a handler over a ledger with project 1 "lab" (gid 1001)
// holding CPU allocation 1 (1000 SU), job 1 of uid 500 executing (60 SU),
// job 2 refused; project 2 "other" (gid 2000) is empty.
func server(t testing.TB) (*Handler, *allocation.Ledger) {
	t.Helper()
	ctx := context.Background()
	l := allocation.New(nil)
	p, err := l.CreateProject(ctx, allocation.Project{Name: "lab", GID: 1001, Account: "lab"})
	require.NoError(t, err)
	_, err = l.CreateProject(ctx, allocation.Project{Name: "other", GID: 2000, Account: "other"})
	require.NoError(t, err)
	a, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "startup", Resource: allocation.CPU,
		Start: t0.AddDate(0, -2, 0), End: t0.AddDate(0, 10, 0)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, a.ID, 1000, "grant", t0)
	require.NoError(t, err)
	_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, UID: 500, Account: "lab", Resource: allocation.CPU, Amount: 60, Rate: 1e6}, t0)
	require.NoError(t, err)
	_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 2, UID: 500, Account: "lab", Resource: allocation.CPU, Amount: 5000}, t0)
	require.ErrorIs(t, err, allocation.ErrInsufficient)
	auth, err := ParseTokens(strings.NewReader(tokens))
	require.NoError(t, err)
	return New(l, auth, func() time.Time { return t0 }), l
}

func call(h http.Handler, token, method, path, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var callers = []string{"", "tok-super-0123456789", "tok-admin-0123456789", "tok-member", "tok-outsider"}

// Every route for every role: the status each gets.
func TestEveryRouteForEveryRole(t *testing.T) {
	const (
		read  = "read"  // 200 for all who may see project 1
		write = "write" // superuser only
	)
	for _, rt := range []struct {
		method, path, body string
		kind               string
		okStatus           int
		// outsiderStatus is a standard user outside project 1 reading: a
		// record it may not see is answered as one that does not exist.
		outsiderStatus int
	}{
		{"GET", "/project", "", read, 200, 200},
		{"GET", "/project/1", "", read, 200, 404},
		{"POST", "/project", `{"gname":"new","gid":3000,"account":"new"}`, write, 201, 0},
		{"PUT", "/project/2", `{"gname":"other2","gid":2000,"account":"other2"}`, write, 200, 0},
		{"DELETE", "/project/2", "", write, 204, 0},
		{"GET", "/alloc", "", read, 200, 200},
		{"GET", "/alloc/1", "", read, 200, 404},
		{"POST", "/alloc", `{"project_id":2,"category":"startup","resource":"GPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}`, write, 201, 0},
		{"PUT", "/alloc/1", `{"project_id":1,"category":"research","resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}`, write, 200, 0},
		{"DELETE", "/alloc/1", "", write, 409, 0}, // it has activity
		{"POST", "/alloc/1/credit", `{"amount":50,"comment":"supplement"}`, write, 201, 0},
		{"GET", "/alloc/1/activity", "", read, 200, 404},
		{"GET", "/alloc/1/debits", "", read, 200, 404},
		{"GET", "/job", "", read, 200, 200},
		{"GET", "/job/1", "", read, 200, 404},
		{"POST", "/job", `{"job_id":7,"uid":500,"account":"lab","resource":"CPU","amount":100,"units":2}`, write, 201, 0},
		{"PUT", "/job/1", `{"elapsed":600,"outcome":"completed"}`, write, 200, 0},
		{"GET", "/failure", "", read, 200, 200},
		{"GET", "/failure/2", "", read, 200, 404},
	} {
		for _, tok := range callers {
			t.Run(rt.method+" "+rt.path+" "+tok, func(t *testing.T) {
				h, _ := server(t)
				rec := call(h, tok, rt.method, rt.path, rt.body)
				want := rt.okStatus
				switch {
				case tok == "":
					want = http.StatusUnauthorized
				case rt.kind == write && tok != "tok-super-0123456789":
					want = http.StatusForbidden
				case rt.kind == read && tok == "tok-outsider":
					want = rt.outsiderStatus
				}
				require.Equal(t, want, rec.Code, rec.Body.String())
				if want >= 400 {
					var e errorBody
					require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
					require.NotEmpty(t, e.Error)
				}
			})
		}
	}
}

func decodeBody[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v), rec.Body.String())
	return v
}

func TestListsAreFilteredByCaller(t *testing.T) {
	h, _ := server(t)
	count := func(tok, path string) int {
		rec := call(h, tok, "GET", path, "")
		require.Equal(t, 200, rec.Code, rec.Body.String())
		return len(decodeBody[[]json.RawMessage](t, rec))
	}
	for _, tc := range []struct {
		path                           string
		super, admin, member, outsider int
	}{
		{"/project", 2, 2, 1, 1},
		{"/project?gid=1001", 1, 1, 1, 0},
		{"/project?account=other", 1, 1, 0, 1},
		{"/alloc", 1, 1, 1, 0},
		{"/alloc?active=true", 1, 1, 1, 0},
		{"/alloc?active=false", 0, 0, 0, 0},
		{"/alloc?gid=2000", 0, 0, 0, 0},
		{"/job", 1, 1, 1, 0},
		{"/job?status=completed", 0, 0, 0, 0},
		{"/job?uid=500", 1, 1, 1, 0},
		{"/failure", 1, 1, 1, 0},
		{"/failure?uid=600", 0, 0, 0, 0},
	} {
		got := []int{count("tok-super-0123456789", tc.path), count("tok-admin-0123456789", tc.path), count("tok-member", tc.path), count("tok-outsider", tc.path)}
		require.Equal(t, []int{tc.super, tc.admin, tc.member, tc.outsider}, got, tc.path)
	}
	// Acting as another user narrows a superuser's view to that user's.
	rec := call(h, "tok-super-0123456789", "GET", "/project", "", "X-Act-As", "600 2000")
	require.Len(t, decodeBody[[]allocation.Project](t, rec), 1)
	rec = call(h, "tok-admin-0123456789", "GET", "/alloc/1", "", "X-Act-As", "600 2000")
	require.Equal(t, 404, rec.Code)
	rec = call(h, "tok-member", "GET", "/project", "", "X-Act-As", "0 0")
	require.Equal(t, 403, rec.Code, "a standard user cannot act as another")
	rec = call(h, "tok-super-0123456789", "GET", "/project", "", "X-Act-As", "zero")
	require.Equal(t, 400, rec.Code)
	rec = call(h, "tok-member", "GET", "/alloc/1", "")
	v := decodeBody[AllocView](t, rec)
	require.Equal(t, AllocView{Allocation: v.Allocation, Account: "lab", GID: 1001, Credits: 1000, Pending: 60, Balance: 940}, v)
}

func TestPreDebitAndCompletionOverHTTP(t *testing.T) {
	h, l := server(t)
	ctx := context.Background()
	rec := call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":7,"uid":500,"account":"lab","resource":"cpu","amount":900,"units":2}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	require.Equal(t, int64(900), decodeBody[allocation.Job](t, rec).Amount)
	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":7,"uid":500,"account":"lab","resource":"cpu","amount":900,"units":2}`)
	require.Equal(t, 201, rec.Code, "a retry returns the same pre-debit")

	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":8,"uid":500,"account":"lab","resource":"CPU","amount":41}`)
	require.Equal(t, http.StatusPaymentRequired, rec.Code)
	e := decodeBody[errorBody](t, rec)
	require.Equal(t, &allocation.InsufficientError{Job: 8, Allocation: 1, Amount: 41, Balance: 40}, e.Failure)
	fs, err := l.Failures(ctx)
	require.NoError(t, err)
	require.Len(t, fs, 2, "the refusal is recorded")

	rec = call(h, "tok-super-0123456789", "PUT", "/job/7", `{"elapsed":601,"outcome":"completed"}`)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	require.Equal(t, int64(21), decodeBody[allocation.Job](t, rec).Debited) // 2 x 601 s
	rec = call(h, "tok-super-0123456789", "PUT", "/job/7", `{"elapsed":601,"outcome":"completed"}`)
	require.Equal(t, 200, rec.Code, "a retried completion")
	rec = call(h, "tok-super-0123456789", "PUT", "/job/7", `{"elapsed":900,"outcome":"completed"}`)
	require.Equal(t, 409, rec.Code)
	rec = call(h, "tok-super-0123456789", "PUT", "/job/1", `{"elapsed":3000,"outcome":"node_fail"}`)
	require.Equal(t, int64(0), decodeBody[allocation.Job](t, rec).Debited)
	b, err := l.Balance(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, allocation.Balance{Allocation: 1, Credits: 1000, Debited: 21, Balance: 979}, b)

	// One rule for job ids: up to 2^63-1, in every store and here.
	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":9223372036854775808,"uid":500,"account":"lab","resource":"CPU","amount":1}`)
	require.Equal(t, 400, rec.Code, rec.Body.String())
	require.Equal(t, "job_id", decodeBody[errorBody](t, rec).Field)
	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":9223372036854775807,"uid":500,"account":"lab","resource":"CPU","amount":1}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	rec = call(h, "tok-super-0123456789", "GET", "/job/9223372036854775807", "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	require.NoError(t, l.Forget(ctx, allocation.MaxJobID, t0))

	// Job 8 was refused; after a credit the same request starts it.
	rec = call(h, "tok-super-0123456789", "POST", "/alloc/1/credit", `{"amount":100,"comment":"top-up"}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":8,"uid":500,"account":"lab","resource":"CPU","amount":41}`)
	require.Equal(t, 201, rec.Code, "a refused job is retried against the balance of now: %s", rec.Body.String())
	rec = call(h, "tok-super-0123456789", "GET", "/failure/8", "")
	require.Equal(t, 200, rec.Code, "the refusal stays on record")
	require.NoError(t, l.Forget(ctx, 8, t0))

	rec = call(h, "tok-super-0123456789", "POST", "/job", `{"job_id":9,"uid":500,"account":"nobody","resource":"CPU","amount":1}`)
	require.Equal(t, 404, rec.Code, "no active allocation")
	rec = call(h, "tok-super-0123456789", "POST", "/alloc", `{"project_id":1,"resource":"CPU","start":"2026-06-01T00:00:00Z","end":"2027-06-01T00:00:00Z"}`)
	require.Equal(t, 409, rec.Code, "overlap")
}

func TestBadInputNamesTheField(t *testing.T) {
	h, _ := server(t)
	for _, tc := range []struct {
		method, path, body, field string
	}{
		{"POST", "/project", `{"gname":"x","account":"x","color":"red"}`, "color"},
		{"POST", "/project", `{"gname":"x","account":"x","gid":"ten"}`, "gid"},
		{"POST", "/project", `{"gname":"x"`, "body"},
		{"POST", "/project", `{"gname":"x","account":"x"} {}`, "body"},
		{"POST", "/project", `{"gname":"","account":"x"}`, "gname"},
		{"POST", "/alloc", `{"project_id":2,"resource":"TPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}`, "resource"},
		{"POST", "/alloc", `{"project_id":2,"resource":"CPU","start":"yesterday","end":"2027-01-01T00:00:00Z"}`, "start"},
		{"POST", "/alloc", `{"project_id":2,"resource":"CPU","start":"2027-01-01T00:00:00Z","end":"2026-01-01T00:00:00Z"}`, "end"},
		{"POST", "/alloc/1/credit", `{"amount":-5}`, "amount"},
		{"POST", "/alloc/1/credit", `[]`, "body"},
		{"POST", "/alloc/1/credit", `"five"`, "body"},
		{"POST", "/job", `{"job_id":7,"uid":500,"account":"lab","resource":"CPU"}`, "amount"},
		{"POST", "/job", `{"job_id":7,"uid":-1,"account":"lab","resource":"CPU","amount":1}`, "uid"},
		{"POST", "/job", `{"uid":1,"account":"lab","resource":"CPU","amount":1}`, "job_id"},
		{"POST", "/job", `{"job_id":7,"account":"lab","resource":"CPU","amount":1,"units":-2}`, "units"},
		{"POST", "/job", `{"job_id":7,"account":"lab","resource":"CPU","amount":1,"units":9223372036854.775808}`, "units"},
		{"POST", "/job", `{"job_id":7,"account":"lab","resource":"CPU","amount":1,"units":9223372036854.7749}`, "units"},
		{"POST", "/job", `{"job_id":7,"account":"lab","resource":"CPU","amount":1,"units":0.0000001}`, "units"},
		{"PUT", "/job/1", `{"outcome":"completed"}`, "elapsed"},
		{"PUT", "/job/1", `{"elapsed":5,"outcome":"exploded"}`, "outcome"},
		{"PUT", "/job/1", `{"elapsed":5,"outcome":"completed","amount":-1}`, "amount"},
		{"GET", "/project/abc", ``, "id"},
		{"GET", "/alloc?active=maybe", ``, "active"},
		{"GET", "/job?uid=x", ``, "uid"},
		{"GET", "/job?status=lost", ``, "status"},
	} {
		rec := call(h, "tok-super-0123456789", tc.method, tc.path, tc.body)
		require.Equal(t, 400, rec.Code, "%s %s %s: %s", tc.method, tc.path, tc.body, rec.Body.String())
		require.Equal(t, tc.field, decodeBody[errorBody](t, rec).Field, "%s %s", tc.path, tc.body)
	}
	rec := call(h, "tok-super-0123456789", "POST", "/project", `{"gname":"`+strings.Repeat("x", MaxBodySize)+`"}`)
	require.Equal(t, 400, rec.Code)
	require.Equal(t, "body", decodeBody[errorBody](t, rec).Field)
	rec = call(h, "nonsense", "GET", "/project", "")
	require.Equal(t, 401, rec.Code)
	require.NotEmpty(t, rec.Header().Get("WWW-Authenticate"))
	rec = call(h, "tok-super-0123456789", "GET", "/project/99", "")
	require.Equal(t, 404, rec.Code)
}

func TestParseTokensErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a0123456789abcdef 1 1 superuser\nb 2 2\n", "2: want"},
		{"a x 1 standard", "1: uid"},
		{"a 1 1,y standard", "1: gid"},
		{"a 1 1 root", "1: role"},
		{"\n# c\na 1 1 standard\na 2 2 standard", "4: token repeated"},
		{"short 0 0 superuser", "1: a superuser token must have at least 16"},
		{"short 0 0 admin", "1: a admin token must have at least 16"},
		{"", "no token lines"},
		{"# only a comment\n\n", "no token lines"},
	} {
		_, err := ParseTokens(strings.NewReader(tc.in))
		require.ErrorContains(t, err, tc.want, tc.in)
	}
	tf, err := ParseTokens(strings.NewReader("t 5 6,7 standard"))
	require.NoError(t, err)
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Authorization", "Bearer t")
	id, err := tf.Authenticate(req)
	require.NoError(t, err)
	require.Equal(t, Identity{UID: 5, GIDs: []uint32{6, 7}, Role: Standard}, id)
	for _, h := range []string{"bearer t", "BEARER t", "Bearer  t"} { // RFC 7235: the scheme is case-insensitive
		req.Header.Set("Authorization", h)
		_, err = tf.Authenticate(req)
		require.NoError(t, err, h)
	}
	for _, h := range []string{"Basic t", "Bearer", "Bearert", "Bearer u"} {
		req.Header.Set("Authorization", h)
		_, err = tf.Authenticate(req)
		require.ErrorIs(t, err, ErrUnauthenticated, h)
	}
}

// A token file others may read is refused, naming its mode.
func TestLoadTokensRefusesReadableFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte("t 5 6 standard\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644))
	_, err := LoadTokens(path)
	require.ErrorContains(t, err, "mode 0644")
	require.NoError(t, os.Chmod(path, 0o600))
	_, err = LoadTokens(path)
	require.NoError(t, err)
}

func FuzzParseTokens(f *testing.F) {
	f.Add(tokens)
	f.Add("a 1 1,2,3 admin\n\n#x\n")
	f.Fuzz(func(t *testing.T, in string) {
		tf, err := ParseTokens(strings.NewReader(in))
		if err == nil {
			require.NotNil(t, tf)
		}
	})
}

// Every list is paged by ID: following X-Next-After visits each item once,
// in order.
func TestListsArePaged(t *testing.T) {
	h, l := server(t)
	ctx := context.Background()
	for id := allocation.JobID(10); id < 17; id++ {
		_, err := l.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 500, Account: "lab", Resource: allocation.CPU, Amount: 1}, t0)
		require.NoError(t, err)
	}
	var got []allocation.JobID
	after := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		rec := call(h, "tok-member", "GET", "/job?limit=3"+after, "")
		require.Equal(t, 200, rec.Code, rec.Body.String())
		for _, j := range decodeBody[[]allocation.Job](t, rec) {
			got = append(got, j.ID)
		}
		next := rec.Header().Get(NextAfterHeader)
		if next == "" {
			break
		}
		after = "&after=" + next
	}
	require.Equal(t, []allocation.JobID{1, 10, 11, 12, 13, 14, 15, 16}, got)
	for _, q := range []string{"limit=0", "limit=10001", "limit=x", "after=-1", "after=9223372036854775808"} {
		rec := call(h, "tok-member", "GET", "/job?"+q, "")
		require.Equal(t, 400, rec.Code, q)
	}
	rec := call(h, "tok-super-0123456789", "GET", "/alloc/1/activity?limit=1&after=1", "")
	require.Equal(t, 200, rec.Code)
	acts := decodeBody[[]allocation.Activity](t, rec)
	require.Len(t, acts, 1)
	require.Equal(t, allocation.ActivityID(2), acts[0].ID)
}

// leakyStore fails as a database would, with text that must not reach a
// caller.
type leakyStore struct{ allocation.Store }

func (leakyStore) Projects(context.Context) ([]allocation.Project, error) {
	return nil, errors.New(`failed to connect to host=db.internal user=hadm database=hadm: pgx driver`)
}

// A database failure is a 500 that says nothing of the database; the
// access log gets the cause. Every change is audited with who and what.
func TestErrorsHideTheCauseAndChangesAreAudited(t *testing.T) {
	auth, err := ParseTokens(strings.NewReader(tokens))
	require.NoError(t, err)
	h := New(allocation.New(leakyStore{allocation.NewMemStore()}), auth, func() time.Time { return t0 })
	var logged []AccessRecord
	h.SetAccessLog(func(r AccessRecord) { logged = append(logged, r) })
	audit, err := OpenAuditLog(filepath.Join(t.TempDir(), "audit"))
	require.NoError(t, err)
	defer audit.Close()
	h.SetAudit(audit)

	rec := call(h, "tok-member", "GET", "/project", "")
	require.Equal(t, 500, rec.Code)
	require.NotContains(t, rec.Body.String(), "db.internal")
	require.NotContains(t, rec.Body.String(), "hadm")
	require.Contains(t, logged[0].Cause, "db.internal")
	require.Equal(t, uint32(500), *logged[0].UID)

	rec = call(h, "tok-super-0123456789", "POST", "/project", `{"gname":"lab","gid":1001,"account":"lab"}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	rec = call(h, "tok-super-0123456789", "POST", "/project", "{\"gname\":\"a\\u0000b\",\"gid\":1,\"account\":\"x\"}")
	require.Equal(t, 400, rec.Code, "a NUL in a name: %s", rec.Body.String())
	rec = call(h, "tok-member", "GET", "/audit", "")
	require.Equal(t, 403, rec.Code)
	rec = call(h, "tok-super-0123456789", "GET", "/audit", "")
	require.Equal(t, 200, rec.Code)
	recs := decodeBody[[]AuditRecord](t, rec)
	require.Len(t, recs, 1, "only the change that was made")
	require.Equal(t, AuditRecord{Seq: 1, Time: t0, UID: 0, Role: "superuser", Method: "POST", Path: "/project",
		Body: []byte(`{"gname":"lab","gid":1001,"account":"lab"}`), Status: 201}, recs[0])
	require.Len(t, logged, 5)
}

// GET /sitefactor: the site factor of an account's jobs in a partition,
// for callers who may see the account.
func TestSiteFactorOverHTTP(t *testing.T) {
	ctx := context.Background()
	l := allocation.New(nil, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	p, err := l.CreateProject(ctx, allocation.Project{Name: "lab", GID: 1001, Account: "lab"})
	require.NoError(t, err)
	a, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: t0.AddDate(0, -6, 0), End: t0.AddDate(0, 6, 0)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, a.ID, 1000, "", t0)
	require.NoError(t, err)
	auth, err := ParseTokens(strings.NewReader(tokens))
	require.NoError(t, err)
	h := New(l, auth, func() time.Time { return t0 })
	rec := call(h, "tok-member", "GET", "/sitefactor?account=lab&partition=standard", "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	f := decodeBody[allocation.SiteFactor](t, rec)
	require.Equal(t, "lab", f.Account)
	require.InDelta(t, 1.0, f.FCredit, 1e-9, "nothing used yet")
	require.InDelta(t, f.FCredit*f.FTemporal, f.Factor, 1e-9)
	for _, q := range []string{"account=lab&partition=gpu", "account=other&partition=standard"} {
		require.Equal(t, 404, call(h, "tok-member", "GET", "/sitefactor?"+q, "").Code, q)
	}
	require.Equal(t, 404, call(h, "tok-outsider", "GET", "/sitefactor?account=lab&partition=standard", "").Code)
	require.Equal(t, 400, call(h, "tok-member", "GET", "/sitefactor?account=lab", "").Code)
}

// A request that reaches a store closed under it (a server shutting down
// past its grace) is a 503 the client may retry, not a 500, and changes
// nothing.
func TestClosedStoreIsServiceUnavailable(t *testing.T) {
	auth, err := ParseTokens(strings.NewReader(tokens))
	require.NoError(t, err)
	s, err := allocation.OpenFile(filepath.Join(t.TempDir(), "ledger"))
	require.NoError(t, err)
	h := New(allocation.New(s), auth, func() time.Time { return t0 })
	rec := call(h, "tok-super-0123456789", "POST", "/project", `{"gname":"lab","gid":1001,"account":"lab"}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	require.NoError(t, s.Close())
	rec = call(h, "tok-super-0123456789", "POST", "/project", `{"gname":"other","gid":2000,"account":"other"}`)
	require.Equal(t, 503, rec.Code, rec.Body.String())
	ps, err := s.Projects(context.Background())
	require.NoError(t, err)
	require.Len(t, ps, 1)
}
