package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
)

func Example() {
	auth, _ := httpapi.ParseTokens(strings.NewReader("s3cret-s3cret-s3cret 0 0 superuser\n"))
	now := func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }
	srv := httptest.NewServer(httpapi.New(allocation.New(nil), auth, now))
	defer srv.Close()

	send := func(method, path, body string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer s3cret-s3cret-s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		fmt.Print(resp.StatusCode, " ", string(out))
	}
	send("POST", "/project", `{"gname":"it_css","gid":1002,"account":"it_css"}`)
	send("POST", "/alloc", `{"project_id":1,"category":"startup","resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}`)
	send("POST", "/alloc/1/credit", `{"amount":100}`)
	send("POST", "/job", `{"job_id":42,"uid":1001,"account":"it_css","resource":"CPU","amount":120}`)
	// Output:
	// 201 {"id":1,"gname":"it_css","gid":1002,"account":"it_css"}
	// 201 {"id":1,"project_id":1,"category":"startup","resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}
	// 201 {"id":1,"allocation_id":1,"kind":"credit","amount":100,"time":"2026-03-01T00:00:00Z"}
	// 402 {"error":"allocation: job 42 needs 120 SU but allocation 1 has 100","failure":{"job_id":42,"allocation_id":1,"amount":120,"balance":100}}
}
