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
