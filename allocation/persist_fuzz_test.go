package allocation

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzDecodeState(f *testing.F) {
	f.Add([]byte(`{"format":"hpcsched-allocation-ledger","version":1,"next":{"project":2,"allocation":2,"activity":3},"projects":[{"id":1,"gname":"a","gid":1,"account":"a"}],"allocations":[{"id":1,"project_id":1,"resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}],"activity":[{"id":1,"allocation_id":1,"kind":"credit","amount":10},{"id":2,"allocation_id":1,"kind":"predebit","amount":-4,"job_id":1}],"jobs":[{"job_id":1,"allocation_id":1,"uid":0,"amount":4,"status":"executing","started":"2026-01-01T00:00:00Z","debited":0}],"failures":[]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeState(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes and decodes to the same tables.
		out, err := encodeState(s)
		require.NoError(t, err)
		s2, err := decodeState(out)
		require.NoError(t, err)
		require.Equal(t, all(s.balances), all(s2.balances))
	})
}

// Any journal either replays or is refused; what replays keeps the ledger
// consistent (every balance is the sum of its activity).
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"seq":1,"op":"create-project","project":{"gname":"a","gid":1,"account":"a"}}
{"seq":2,"op":"put-allocation","allocation":{"project_id":1,"resource":"CPU","start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00Z"}}
{"seq":3,"op":"credit","id":1,"amount":30,"now":"2026-02-01T00:00:00Z"}
{"seq":4,"op":"predebit","predebit":{"job_id":1,"uid":0,"account":"a","resource":"CPU","amount":20},"now":"2026-02-01T00:00:00Z"}
{"seq":5,"op":"predebit","predebit":{"job_id":2,"uid":0,"account":"a","resource":"CPU","amount":20},"now":"2026-02-01T00:00:00Z"}
{"seq":6,"op":"complete","completion":{"job_id":1,"elapsed":60000000000,"outcome":"node_fail"},"now":"2026-02-01T00:00:00Z"}
{"seq":7,"op":"forget","id":1}
{"seq":8,"op":"cre`))
	f.Add([]byte("hpcsched-allocation-journal 2 after 0\n" +
		"74 1c7a1a1e {\"seq\":1,\"op\":\"create-project\",\"project\":{\"gname\":\"a\",\"gid\":1,\"account\":\"a\"}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newState()
		if _, _, err := replay(s, "journal", data); err != nil {
			var je *JournalError
			require.ErrorAs(t, err, &je) // damage is named with its offset
			require.LessOrEqual(t, je.Offset, int64(len(data)))
			return
		}
		s.balances.Ascend(func(b Balance) bool {
			var sum int64
			s.activity.Ascend(func(a Activity) bool {
				if a.Allocation == b.Allocation {
					sum += a.Amount
				}
				return true
			})
			require.Equal(t, sum, b.Balance)
			require.GreaterOrEqual(t, b.Balance, int64(0))
			return true
		})
	})
}
