package allocation

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultCompactEvery is how many journaled changes OpenFile's store
// makes before it writes a snapshot and starts a new journal.
const DefaultCompactEvery = 1024

func (m *MemStore) journalPath() string { return m.path + ".journal" }

// openJournal replays the journal over the snapshot and opens it for
// appending. snapshot says whether a snapshot file was found. A journal
// without a snapshot, or a snapshot without a journal, is refused: one of
// them was deleted (a fresh ledger writes both at once). A version 1
// journal is converted: the replayed state is snapshotted and a version 2
// journal started.
func (m *MemStore) openJournal(snapshot bool) error {
	data, err := readLimited(m.journalPath())
	missing := errors.Is(err, fs.ErrNotExist)
	switch {
	case err != nil && !missing:
		return fmt.Errorf("%w: %v", ErrFile, err)
	case missing && snapshot:
		return fmt.Errorf("%w: journal %s is missing beside the snapshot %s (deleted?): the changes since the snapshot are not known; `hpcsched alloc repair` starts a new journal, accepting their loss",
			ErrFile, m.journalPath(), m.path)
	case missing:
		return m.startJournal() // a new ledger: snapshot and journal
	}
	legacy, n, err := replay(m.st, m.journalPath(), data)
	if err != nil {
		return err
	}
	if !snapshot && !legacy {
		return fmt.Errorf("%w: snapshot %s is missing beside the journal %s (deleted?); `hpcsched alloc repair` rebuilds what the journal holds",
			ErrFile, m.path, m.journalPath())
	}
	if legacy {
		return m.startJournal()
	}
	f, err := os.OpenFile(m.journalPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFile, err)
	}
	m.journal, m.journalSize, m.sinceSnapshot = f, int64(len(data)), n
	return nil
}

// startJournal writes a snapshot of the state and an empty journal after it.
func (m *MemStore) startJournal() error {
	if err := m.persist(m.st); err != nil {
		return err
	}
	return m.newJournal()
}

// replay applies the journal's ops after s.seq to s: how many it applied,
// and whether the journal is version 1 (no header). Any damage is a
// *JournalError: a record cut short, changed, out of sequence, or one
// that no longer applies.
func replay(s *state, file string, data []byte) (legacy bool, applied int, err error) {
	fail := func(off int64, rec int, format string, args ...any) (bool, int, error) {
		return false, 0, &JournalError{File: file, Offset: off, Record: rec, Reason: fmt.Sprintf(format, args...)}
	}
	var off int64
	legacy = true
	if i := bytes.IndexByte(data, '\n'); bytes.HasPrefix(data, []byte(journalMagic)) || (i >= 0 && bytes.HasPrefix(data[:i], []byte(journalMagic))) {
		if i < 0 {
			return fail(0, 0, "the header is cut short")
		}
		after, _, err := parseHeader(data[:i])
		var ve *versionError
		if errors.As(err, &ve) {
			return false, 0, fmt.Errorf("%w: journal %s: %v", ErrFile, file, err)
		}
		if err != nil {
			return fail(0, 0, "%v", err)
		}
		if after > s.seq {
			return fail(0, 0, "it follows op %d but the snapshot holds ops up to %d only: the snapshot is older than its journal", after, s.seq)
		}
		legacy, off = false, int64(i+1)
	}
	for rec := 1; off < int64(len(data)); rec++ {
		rest := data[off:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return fail(off, rec, "cut short (%d bytes, no end of line): the file was truncated or a write torn", len(rest))
		}
		o, err := decodeRecord(rest[:i], legacy)
		if err != nil {
			return fail(off, rec, "%v", err)
		}
		switch {
		case o.Seq <= s.seq: // already in the snapshot
		case o.Seq != s.seq+1:
			return fail(off, rec, "op %d follows op %d: ops are missing", o.Seq, s.seq)
		default:
			if _, keep, err := o.run(s); err != nil && !keep {
				return fail(off, rec, "op %d (%s) no longer applies: %v", o.Seq, o.Kind, err)
			}
			s.seq = o.Seq
			applied++
		}
		off += int64(i + 1)
	}
	return legacy, applied, nil
}

// logOp appends o to the journal and fsyncs it. On failure the journal is
// cut back to its previous length, so the unacknowledged op is not
// replayed later; if even that fails the store refuses further writes.
func (m *MemStore) logOp(o *op) (err error) {
	line, err := encodeRecord(o)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		err = fmt.Errorf("allocation: journal %s: %w", m.journalPath(), err)
		if terr := m.journal.Truncate(m.journalSize); terr != nil {
			m.broken = fmt.Errorf("%w (and cutting it back failed: %v)", err, terr)
		}
	}()
	if err = m.step("append"); err != nil {
		return err
	}
	if _, err = m.journal.Write(line); err != nil {
		return err
	}
	if err = m.step("fsync"); err != nil {
		return err
	}
	if err = m.journal.Sync(); err != nil {
		return err
	}
	m.journalSize += int64(len(line))
	m.sinceSnapshot++
	return nil
}

// compaction is a snapshot to write: the state after op seq, which the
// journal holds up to byte offset tail.
type compaction struct {
	st   *state
	tail int64
}

// startCompaction, under the write lock, starts a compaction once enough
// ops have accumulated and none is running. The state it snapshots is a
// clone no writer sees, so it is read and changed without the lock.
func (m *MemStore) startCompaction() *compaction {
	if m.compacting || m.sinceSnapshot < m.compactEvery {
		return nil
	}
	m.compacting = true
	// A clone, so the archiving outside the lock has a state of its own.
	return &compaction{st: m.st.clone(), tail: m.journalSize}
}

// compact writes c's snapshot without holding the write lock, then, under
// it, replaces the journal by one holding only the ops made meanwhile
// (copied from the old one's tail: a few records). The ops are durable in
// the journal throughout, so a failure or a crash at any step loses
// nothing: the old snapshot and journal stay whole until each rename, and
// replay skips the ops a snapshot includes. A failure is retried after
// the next change.
//
// The completed jobs of c's state are first archived into new segments
// (see segment.go); the snapshot lists them and no longer holds the jobs.
// Once it is written, the live state drops what was archived.
func (m *MemStore) compact(c *compaction) {
	snap, done, gone, err := archiveCompleted(m.path, c.st, m.segmentLimit(), m.step)
	if err == nil {
		err = m.persist(snap)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.compacting = false
	if err != nil || m.journal == nil {
		return
	}
	if len(done) > 0 {
		m.st = m.st.afterArchive(snap, done)
	}
	// No reader sees the replaced segments now (readers hold the read
	// lock), and the snapshot on disk no longer lists them.
	if len(gone) > 0 && m.step("unlink") == nil {
		removeSegments(filepath.Dir(m.path), gone)
	}
	m.swapJournal(c)
}

func (m *MemStore) segmentLimit() int64 {
	if m.segmentSize > 0 {
		return m.segmentSize
	}
	return DefaultSegmentSize
}

// swapJournal writes header(c's seq) + the old journal's records after
// c.tail to a temporary file and renames it over the journal.
func (m *MemStore) swapJournal(c *compaction) {
	if m.step("truncate") != nil {
		return
	}
	tail := make([]byte, m.journalSize-c.tail)
	old, err := os.Open(m.journalPath())
	if err != nil {
		return
	}
	_, err = old.ReadAt(tail, c.tail)
	old.Close()
	if err != nil {
		return
	}
	if m.writeJournal(append(journalHeader(c.st.seq), tail...)) == nil {
		m.sinceSnapshot = int(m.st.seq - c.st.seq)
	}
}

// newJournal replaces the journal by one holding only the header after
// the current state's last op.
func (m *MemStore) newJournal() error {
	if err := m.step("truncate"); err != nil {
		return err
	}
	if err := m.writeJournal(journalHeader(m.st.seq)); err != nil {
		return err
	}
	m.sinceSnapshot = 0
	return nil
}

// writeJournal makes content the journal: written to a temporary file,
// fsynced and renamed over the old one, so a crash leaves the old journal
// or the new one, never none; then it is opened for appending.
func (m *MemStore) writeJournal(content []byte) error {
	dir := filepath.Dir(m.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(m.journalPath())+".tmp-*")
	if err != nil {
		return err
	}
	if _, err = tmp.Write(content); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), m.journalPath())
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	syncDir(dir)
	f, err := os.OpenFile(m.journalPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		m.broken = fmt.Errorf("allocation: journal %s: %w", m.journalPath(), err)
		return err
	}
	if m.journal != nil {
		m.journal.Close()
	}
	m.journal, m.journalSize = f, int64(len(content))
	return nil
}

func (m *MemStore) step(name string) error {
	if m.failAt != nil {
		return m.failAt(name)
	}
	return nil
}

// Close releases the journal and the lock; the store must not be written
// afterwards.
func (m *MemStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.journal == nil {
		return nil
	}
	err := m.journal.Close()
	if m.lock != nil {
		m.lock.Close()
		m.lock = nil
	}
	m.journal = nil
	m.broken = fmt.Errorf("%w: %s", ErrClosed, m.path)
	return err
}
