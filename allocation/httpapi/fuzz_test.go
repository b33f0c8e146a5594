package httpapi

import (
	"encoding/json"
	"testing"
)

// Any body on any write route gets a JSON answer below 500: bad input is
// a 400 naming a field, never a panic or an internal error.
func FuzzWriteBodies(f *testing.F) {
	for _, seed := range []string{
		`{"gname":"x","gid":1,"account":"x"}`,
		`{"project_id":1,"resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}`,
		`{"job_id":7,"uid":500,"account":"lab","resource":"CPU","amount":100,"units":2.5}`,
		`{"elapsed":600,"outcome":"node_fail","amount":3}`,
		`{"amount":5}`, `[]`, `{"amount":1e400}`, `{"units":-0}`, ``,
	} {
		for route := range 6 {
			f.Add(uint8(route), seed)
		}
	}
	routes := []struct{ method, path string }{
		{"POST", "/project"}, {"PUT", "/project/2"}, {"POST", "/alloc"},
		{"POST", "/alloc/1/credit"}, {"POST", "/job"}, {"PUT", "/job/1"},
	}
	h, _ := server(f)
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		rt := routes[int(route)%len(routes)]
		rec := call(h, "tok-super-0123456789", rt.method, rt.path, body)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", rt.method, rt.path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s %q: %d with body %s", rt.method, rt.path, body, rec.Code, rec.Body)
			}
		}
	})
}
