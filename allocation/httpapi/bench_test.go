package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// GET /job by a standard user on a ledger of allocs allocations and jobs
// jobs (the caller's own jobs spread over all of them): one page.
func BenchmarkListJobs(b *testing.B) {
	for _, sc := range []struct{ allocs, jobs int }{{300, 3000}, {3000, 30000}} {
		b.Run(fmt.Sprintf("allocs=%d/jobs=%d", sc.allocs, sc.jobs), func(b *testing.B) {
			ctx := context.Background()
			l := allocation.New(nil)
			for i := range sc.allocs {
				acct := fmt.Sprint("p", i)
				p, err := l.CreateProject(ctx, allocation.Project{Name: acct, GID: uint32(3000 + i), Account: acct})
				if err != nil {
					b.Fatal(err)
				}
				a, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: t0.AddDate(-1, 0, 0), End: t0.AddDate(1, 0, 0)})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := l.Credit(ctx, a.ID, 1<<40, "", t0); err != nil {
					b.Fatal(err)
				}
			}
			for j := range sc.jobs {
				r := allocation.PreDebitRequest{Job: allocation.JobID(j + 1), UID: 500, Account: fmt.Sprint("p", j%sc.allocs), Resource: allocation.CPU, Amount: 1}
				if _, err := l.PreDebit(ctx, r, t0); err != nil {
					b.Fatal(err)
				}
			}
			auth, err := ParseTokens(strings.NewReader(tokens))
			if err != nil {
				b.Fatal(err)
			}
			h := New(l, auth, func() time.Time { return t0 })
			b.ResetTimer()
			for range b.N {
				if rec := call(h, "tok-member", "GET", "/job?limit=100", ""); rec.Code != 200 {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
