package allocation

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A version 1 segment (a version 3 ledger's: no refusals, no allocation
// index) is still read, through; a version 1 header with an index offset
// is refused.
func TestVersion1SegmentsAreReadThrough(t *testing.T) {
	dir := t.TempDir()
	w := &segmentWriter{dir: dir, base: "s", limit: 1 << 20, next: 1, step: func(string) error { return nil }}
	for id := JobID(1); id <= 3; id++ {
		require.NoError(t, w.add(archived{Job: Job{ID: id, Allocation: AllocationID(2 - id%2), Status: Completed},
			Activity: []Activity{{ID: ActivityID(id), Allocation: AllocationID(2 - id%2), Kind: KindPreDebit, Job: id}}}))
	}
	require.NoError(t, w.flush())
	m := w.metas[0]
	require.Equal(t, []AllocationID{1, 2}, m.Allocations)
	data, err := os.ReadFile(filepath.Join(dir, m.Name))
	require.NoError(t, err)
	v1 := append([]byte(segmentMagicV1), data[len(segmentMagic):m.Index]...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.seg.000009"), v1, 0o600))
	old := segmentMeta{Name: "s.seg.000009", Count: 3, Size: int64(len(v1)), CRC: crc32.Checksum(v1, castagnoli()), MinJob: 1, MaxJob: 3}

	for _, meta := range []segmentMeta{m, old} {
		var ids []JobID
		require.NoError(t, recordsOf(dir, meta, 1, func(a archived) bool {
			if a.Job.Allocation == 1 { // read through: every record comes, the caller keeps its own
				ids = append(ids, a.Job.ID)
			}
			return true
		}))
		require.Equal(t, []JobID{1, 3}, ids, meta.Name)
		good, _, err := scanSegment(dir, meta, func(archived) bool { return true })
		require.NoError(t, err)
		require.Equal(t, 3, good)
		a, ok, err := findInSegment(dir, meta, 2)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, AllocationID(2), a.Job.Allocation)
	}
	old.Index = int64(len(segmentMagic))
	_, _, err = scanSegment(dir, old, func(archived) bool { return true })
	var se *SegmentError
	require.ErrorAs(t, err, &se)
}

// A segment's index entry keeps the archived jobs' id range apart from
// the refused jobs': a job refused long ago, archived with today's jobs,
// does not make every job lookup in between bisect the segment.
func TestRefusalsKeepTheirOwnIDRange(t *testing.T) {
	w := &segmentWriter{dir: t.TempDir(), base: "s", limit: 1 << 20, next: 1, step: func(string) error { return nil }}
	require.NoError(t, w.add(archived{Job: Job{ID: 5}, Failures: []Failure{{Job: 5, Attempt: 1, Allocation: 1}, {Job: 5, Attempt: 2, Allocation: 1}}}))
	require.NoError(t, w.add(archived{Job: Job{ID: 100, Allocation: 1, Status: Completed}, Failures: []Failure{{Job: 100, Attempt: 1, Allocation: 1}}}))
	require.NoError(t, w.add(archived{Job: Job{ID: 101, Allocation: 2, Status: Completed}}))
	require.NoError(t, w.flush())
	m := w.metas[0]
	require.Equal(t, [6]int64{100, 101, 5, 100, 3, 3}, [6]int64{int64(m.MinJob), int64(m.MaxJob), int64(m.MinRefused), int64(m.MaxRefused), int64(m.Failures), int64(m.Count)})
	s := &state{dir: w.dir, segs: w.metas}
	for id, want := range map[JobID]int64{5: 2, 100: 1, 101: 0, 50: 0} {
		f, err := s.lastArchivedFailure(id)
		require.NoError(t, err)
		require.Equal(t, want, f.Attempt, "job %d", id)
	}
	s.forgotten, s.jobs = newState().forgotten, newState().jobs
	for id, want := range map[JobID]bool{5: false, 100: true, 101: true, 50: false} {
		_, ok, err := s.job(id)
		require.NoError(t, err)
		require.Equal(t, want, ok, "job %d", id)
	}
}
