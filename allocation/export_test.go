package allocation

import "path/filepath"

// SetFailAt makes m's persistence fail at the named step ("write", "sync",
// "close", "rename", "syncdir"), as a crash there would; nil clears it.
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
