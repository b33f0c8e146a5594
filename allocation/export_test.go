package allocation

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
)

// SetFailAt makes m's persistence fail at the named step ("append",
// "fsync" of the journal; "segment" before a segment file is written;
// "write", "sync", "close", "rename", "syncdir" of the snapshot; "unlink"
// before a merged segment's old file is removed; "truncate" of the
// journal), as a crash there would; nil clears it.
func SetFailAt(m *MemStore, f func(step string) error) { m.failAt = f }

// CopyInto replaces to's state with from's and persists it (benchmarks
// build large ledgers in memory, then measure the file store).
func CopyInto(from, to *MemStore) error {
	from.mu.RLock()
	st := from.st.clone()
	from.mu.RUnlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	if err := to.persist(st); err != nil {
		return err
	}
	to.st = st
	return nil
}

// SetCompactEvery sets after how many journaled changes m writes a
// snapshot.
func SetCompactEvery(m *MemStore, n int) { m.compactEvery = n }

// OpenAfterCrash opens path as a process restarting after a crash would:
// the crashed store (still open in the test) no longer holds the lock.
func OpenAfterCrash(path string) (*MemStore, error) { return openFile(path, false) }

// WriteLockFree reports whether m's write lock is free right now.
func WriteLockFree(m *MemStore) bool {
	if m.mu.TryLock() {
		m.mu.Unlock()
		return true
	}
	return false
}

// SetSegmentSize sets the size at which m's compactions start a new
// segment file.
func SetSegmentSize(m *MemStore, n int64) { m.segmentSize = n }

// ArchiveTo moves the completed jobs of m, an in-memory store, into
// segments beside path by the file store's compaction path, so tests
// build long histories in memory, a batch at a time; CopyInto then
// writes m's snapshot to the file store at path.
func ArchiveTo(m *MemStore, path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st.clone()
	st.dir = filepath.Dir(path)
	snap, _, gone, err := archiveCompleted(path, st, DefaultSegmentSize, m.step)
	if err != nil {
		return err
	}
	removeSegments(st.dir, gone)
	m.st = snap
	return nil
}

// Segments is how many segment files m's snapshot lists.
func Segments(m *MemStore) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.st.segs)
}

// SetReleaseQueueLimit sets the largest file q writes.
func SetReleaseQueueLimit(q *ReleaseQueue, n int64) { q.limit = n }

// CheckSegmentIndexes reads every segment m's snapshot lists and checks
// its index entry (counts, id ranges, allocations) and its allocation
// index against its records, and that its job ids ascend.
func CheckSegmentIndexes(m *MemStore) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, meta := range m.st.segs {
		if err := checkSegmentIndex(m.st.dir, meta); err != nil {
			return fmt.Errorf("%s: %w", meta.Name, err)
		}
	}
	return nil
}

func checkSegmentIndex(dir string, meta segmentMeta) error {
	data, err := os.ReadFile(filepath.Join(dir, meta.Name))
	if err != nil || meta.Index == 0 {
		return err
	}
	want := segmentMeta{Name: meta.Name, Size: meta.Size, CRC: meta.CRC, Index: meta.Index}
	offsets := map[AllocationID][]int64{}
	var last JobID
	for off := int64(len(segmentMagic)); off < meta.Index; {
		line := data[off : off+int64(bytes.IndexByte(data[off:], '\n'))+1]
		a, err := decodeArchived(line)
		if err != nil {
			return err
		}
		if a.Job.ID <= last {
			return fmt.Errorf("job %d after job %d", a.Job.ID, last)
		}
		last = a.Job.ID
		want.note(a)
		set := map[AllocationID]bool{}
		allocationsOf(a, set)
		for id := range set {
			offsets[id] = append(offsets[id], off)
		}
		off += int64(len(line))
	}
	want.Allocations = slices.Sorted(maps.Keys(offsets))
	if !reflect.DeepEqual(want, meta) {
		return fmt.Errorf("index entry %+v, the records give %+v", meta, want)
	}
	idx, err := readIndex(dir, meta)
	if err != nil {
		return err
	}
	for _, e := range idx.Allocations {
		if !slices.Equal(e.Offsets, offsets[e.Allocation]) {
			return fmt.Errorf("allocation %d: offsets %v, the records give %v", e.Allocation, e.Offsets, offsets[e.Allocation])
		}
	}
	if len(idx.Allocations) != len(offsets) {
		return fmt.Errorf("the index names %d allocations, the records %d", len(idx.Allocations), len(offsets))
	}
	return nil
}
