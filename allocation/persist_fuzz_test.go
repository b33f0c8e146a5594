package allocation

import (
	"errors"
	"os"
	"path/filepath"
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
	f.Add([]byte("hpcsched-allocation-journal 3 after 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newState()
		if _, _, err := replay(s, "journal", data); err != nil {
			var je *JournalError
			if !errors.As(err, &je) { // a whole header of another version is not damage
				require.ErrorIs(t, err, ErrFile)
				require.Contains(t, err.Error(), "format version")
				return
			}
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

// Any segment file is read through or refused with a *SegmentError whose
// offset lies in the file; a lookup by bisection agrees with reading it
// through on every id both find; reading an allocation's records through
// an index at any offset finds records of the file or refuses; nothing
// panics.
func FuzzSegment(f *testing.F) {
	rec := encodeLine([]byte(`{"job":{"job_id":3,"allocation_id":1,"uid":0,"amount":4,"status":"completed","started":"2026-01-01T00:00:00Z","debited":2},"activity":[]}`))
	f.Add(append([]byte(segmentMagic), rec...), uint64(3), uint64(0))
	f.Add([]byte(segmentMagic+"5 00000000 {}\n"), uint64(1), uint64(0))
	w := &segmentWriter{dir: f.TempDir(), base: "s", limit: 1 << 20, next: 1, step: func(string) error { return nil }}
	for id := JobID(1); id <= 3; id++ {
		require.NoError(f, w.add(archived{Job: Job{ID: id, Allocation: AllocationID(id % 2), Status: Completed},
			Failures: []Failure{{Job: id, Attempt: 1, Allocation: 1}}}))
	}
	require.NoError(f, w.flush())
	written, err := os.ReadFile(filepath.Join(w.dir, w.metas[0].Name))
	require.NoError(f, err)
	f.Add(written, uint64(2), uint64(w.metas[0].Index))
	f.Fuzz(func(t *testing.T, data []byte, id, index uint64) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "s.seg.000001"), data, 0o600))
		m := segmentMeta{Name: "s.seg.000001", Size: int64(len(data)), Count: -1}
		found := map[JobID]Job{}
		_, _, err := scanSegment(dir, m, func(a archived) bool { found[a.Job.ID] = a.Job; return true })
		var se *SegmentError
		require.ErrorAs(t, err, &se) // the count never matches -1
		require.LessOrEqual(t, se.Offset, int64(len(data)))
		m.Index = int64(index % uint64(len(data)+1))
		if err := recordsOf(dir, m, 1, func(a archived) bool { return true }); err != nil {
			require.ErrorAs(t, err, &se)
		}
		m.Index = 0
		a, ok, err := findInSegment(dir, m, JobID(id))
		j := a.Job
		if err != nil {
			require.ErrorAs(t, err, &se)
			return
		}
		if ok {
			require.Equal(t, JobID(id), j.ID)
			if want, read := found[JobID(id)]; read {
				require.Equal(t, want, j)
			}
		}
	})
}
