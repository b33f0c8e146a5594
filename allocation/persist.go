package allocation

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FileFormat and FileVersion head every ledger file; Open refuses other
// versions rather than misreading them.
const (
	FileFormat  = "hpcsched-allocation-ledger"
	FileVersion = 4
	// MaxFileSize is the largest ledger file Open reads (checked before
	// reading it).
	MaxFileSize = 1 << 30
)

// ErrFile: a ledger file cannot be read or is not a ledger of a known
// version.
var ErrFile = errors.New("allocation: bad ledger file")

// ErrLocked: another store (in this process or another) has the ledger
// file open; *LockedError names it.
var ErrLocked = errors.New("allocation: ledger file in use")

// LockedError is OpenFile refused because another store holds the ledger's
// lock file; Holder is what the holder wrote there (its pid and host).
type LockedError struct {
	Path, Holder string
}

// Error names the holder and the lock file.
func (e *LockedError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "another process"
	}
	return fmt.Sprintf("allocation: ledger is in use by %s (lock file %s); stop it first", holder, e.Path)
}

// Unwrap makes a *LockedError match ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// fileImage is the versioned JSON format. Version 3 holds the live
// ledger: the activity, jobs and refusals not archived into segments, the
// segments' index, and the balances and per-owner debits (which the
// archived history no longer held in memory sums to). Version 4 is the
// same, its segments also holding refusals and an allocation index (a
// version 3 ledger's segments are read as they are). Versions 1 and 2
// hold the whole history and no totals: Open recomputes them from the
// activity.
type fileImage struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Seq         int64         `json:"seq"` // the last journal op the snapshot includes
	Next        nextIDs       `json:"next"`
	Segments    []segmentMeta `json:"segments"`
	Forgotten   []JobID       `json:"forgotten"` // archived jobs forgotten since
	Balances    []Balance     `json:"balances"`
	Debits      []OwnerDebit  `json:"debits"`
	Projects    []Project     `json:"projects"`
	Allocations []Allocation  `json:"allocations"`
	Activity    []Activity    `json:"activity"`
	Jobs        []Job         `json:"jobs"`
	Failures    []Failure     `json:"failures"`
}

// OpenFile is a MemStore persisted to path: the snapshot at path (an
// empty ledger when absent) and the journal path+".journal" of the ops
// made since, replayed. Every change is appended to the journal and
// fsynced before it is acknowledged; every DefaultCompactEvery changes the
// whole state is written to path atomically and the journal emptied.
// Close the store to release the journal.
//
// The store takes an exclusive lock (flock on path+".lock", which names
// the holding process) for as long as it is open: a second OpenFile of the
// same ledger, in this process or another, fails with a *LockedError, so
// two servers never write one ledger. An empty path is ErrInvalid, a
// path naming a directory or device ErrFile; nothing is created for
// either.
func OpenFile(path string) (*MemStore, error) { return openFile(path, true) }

// openFile is OpenFile; without locking when lock is false (tests read a
// ledger as a process restarting after a crash would, while the crashed
// store is still open in the test).
func openFile(path string, locked bool) (_ *MemStore, err error) {
	if err := checkLedgerPath(path); err != nil {
		return nil, err
	}
	var lock *os.File
	if locked {
		if lock, err = lockFile(path + ".lock"); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil && lock != nil {
			lock.Close()
		}
	}()
	m := &MemStore{st: newState(), path: path, compactEvery: DefaultCompactEvery, segmentSize: DefaultSegmentSize, lock: lock}
	st, err := readSnapshot(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrFile, err)
	default:
		m.st = st
		if err := checkSegments(m.st); err != nil {
			return nil, err
		}
	}
	m.st.dir = filepath.Dir(path)
	snapshot := err == nil
	if err := m.openJournal(snapshot); err != nil {
		return nil, err
	}
	if snapshot && locked { // not while a crashed store may still write (tests)
		removeUnlisted(path, m.st.segs)
	}
	return m, nil
}

// checkLedgerPath refuses, before a lock file is made beside it, an empty
// path (ErrInvalid: it would put the ledger's files in the working
// directory under names starting with a dot) and a device or directory
// (ErrFile).
func checkLedgerPath(path string) error {
	if path == "" {
		return invalidf("path", "the ledger needs a file")
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrFile, path)
	}
	return nil
}

// checkSegments checks that every segment the snapshot lists is there
// with its size (its records are checked when read, and by CheckFile).
func checkSegments(s *state) error {
	for _, m := range s.segs {
		if err := statSegment(s.dir, m); err != nil {
			return fmt.Errorf("%w: %v", ErrFile, err)
		}
	}
	return nil
}

// readLimited reads a regular file of at most MaxFileSize bytes: its size
// is checked before reading and the reading stops at the budget (a file
// growing meanwhile, or a device, cannot make it allocate more).
func readLimited(path string) ([]byte, error) { return readLimitedTo(path, MaxFileSize) }

func readLimitedTo(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case info.Size() > limit:
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// The snapshot's first line, "hpcsched-allocation-ledger 2 LENGTH CRC",
// gives the length and CRC-32C of the JSON image that follows, so a
// snapshot cut short or changed is refused. A version 1 snapshot is the
// bare image.
func snapshotHeader(body []byte) []byte {
	return fmt.Appendf(nil, "%s %d %d %08x\n", FileFormat, FileVersion, len(body), crc32.Checksum(body, castagnoli()))
}

func encodeState(s *state) ([]byte, error) {
	img := fileImage{
		Format: FileFormat, Version: FileVersion, Seq: s.seq, Next: s.next,
		Segments: s.segs, Forgotten: all(s.forgotten), Balances: all(s.balances), Debits: all(s.debits),
		Projects: all(s.projects), Allocations: all(s.allocs), Activity: all(s.activity),
		Jobs: all(s.jobs), Failures: all(s.failures),
	}
	body, err := json.Marshal(img)
	if err != nil {
		return nil, err
	}
	return append(snapshotHeader(body), body...), nil
}

// persist writes s to m.path atomically: a temporary file in the same
// directory, fsync, rename over the old file, fsync of the directory so
// the rename itself is durable. Until the rename the old file is intact;
// after it the new one is complete.
func (m *MemStore) persist(s *state) (err error) {
	data, err := encodeState(s)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(m.path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("allocation: save %s: %w", m.path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("allocation: save %s: %w", m.path, err)
		}
	}()
	steps := []struct {
		name string
		do   func() error
	}{
		{"write", func() error { _, e := tmp.Write(data); return e }},
		{"sync", tmp.Sync},
		{"close", tmp.Close},
		{"rename", func() error { return os.Rename(tmp.Name(), m.path) }},
		{"syncdir", func() error { return syncDir(dir) }},
	}
	for _, st := range steps {
		if err = m.step(st.name); err != nil {
			return err
		}
		if err = st.do(); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
