package allocation

import (
	"bytes"
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
	FileVersion = 2
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

// fileImage is the versioned JSON format. Balances and per-owner debits
// are not stored: Open recomputes them from the activity, so a file can
// never carry a balance that disagrees with its history.
type fileImage struct {
	Format      string       `json:"format"`
	Version     int          `json:"version"`
	Seq         int64        `json:"seq"` // the last journal op the snapshot includes
	Next        nextIDs      `json:"next"`
	Projects    []Project    `json:"projects"`
	Allocations []Allocation `json:"allocations"`
	Activity    []Activity   `json:"activity"`
	Jobs        []Job        `json:"jobs"`
	Failures    []Failure    `json:"failures"`
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
// two servers never write one ledger.
func OpenFile(path string) (*MemStore, error) { return openFile(path, true) }

// openFile is OpenFile; without locking when lock is false (tests read a
// ledger as a process restarting after a crash would, while the crashed
// store is still open in the test).
func openFile(path string, locked bool) (_ *MemStore, err error) {
	// A device or directory is refused before its lock file is made.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrFile, path)
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
	m := &MemStore{st: newState(), path: path, compactEvery: DefaultCompactEvery, lock: lock}
	data, err := readLimited(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrFile, err)
	default:
		if m.st, err = decodeState(data); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrFile, path, err)
		}
	}
	if err := m.openJournal(err == nil); err != nil {
		return nil, err
	}
	return m, nil
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
	return fmt.Appendf(nil, "%s %d %d %08x\n", FileFormat, FileVersion, len(body), crc32.Checksum(body, castagnoli))
}

// snapshotBody checks the header and returns the image.
func snapshotBody(data []byte) ([]byte, error) {
	if len(data) > 0 && data[0] == '{' {
		return data, nil // version 1
	}
	line, body, ok := bytes.Cut(data, []byte("\n"))
	var version, n int
	var sum uint32
	if _, err := fmt.Sscanf(string(line), FileFormat+" %d %d %x", &version, &n, &sum); !ok || err != nil {
		return nil, fmt.Errorf("the first line %.80q is not %q", line, FileFormat+" VERSION LENGTH CRC")
	}
	switch {
	case version != FileVersion:
		return nil, fmt.Errorf("version %d, want %d", version, FileVersion)
	case n != len(body):
		return nil, fmt.Errorf("the header gives %d bytes but %d follow: cut short or grown", n, len(body))
	case crc32.Checksum(body, castagnoli) != sum:
		return nil, fmt.Errorf("checksum %08x does not match the image's bytes: it was changed", sum)
	}
	return body, nil
}

func decodeState(data []byte) (*state, error) {
	body, err := snapshotBody(data)
	if err != nil {
		return nil, err
	}
	var img fileImage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&img); err != nil {
		return nil, err
	}
	if img.Format != FileFormat || (img.Version != FileVersion && img.Version != 1) {
		return nil, fmt.Errorf("format %q version %d, want %q version %d", img.Format, img.Version, FileFormat, FileVersion)
	}
	s := newState()
	s.next, s.seq = img.Next, img.Seq
	for _, p := range img.Projects {
		s.projects.ReplaceOrInsert(p)
		s.accounts.ReplaceOrInsert(p)
	}
	for _, a := range img.Allocations {
		s.allocs.ReplaceOrInsert(a)
		s.periods.ReplaceOrInsert(a)
	}
	for _, j := range img.Jobs {
		s.putJob(j)
		if j.Status == Completed {
			d, _ := s.debits.Get(OwnerDebit{Allocation: j.Allocation, UID: j.UID})
			d.Allocation, d.UID, d.Jobs = j.Allocation, j.UID, d.Jobs+1
			var err error
			if d.Amount, err = add(d.Amount, j.Debited); err != nil {
				return nil, err
			}
			s.debits.ReplaceOrInsert(d)
		}
	}
	for _, f := range img.Failures {
		f.Attempt = max(f.Attempt, 1) // written before refusals were retried
		s.failures.ReplaceOrInsert(f)
	}
	next := s.next.Activity
	for _, a := range img.Activity {
		s.next.Activity = a.ID // apply numbers it; keep the stored id
		if _, err := s.apply(a); err != nil {
			return nil, err
		}
	}
	s.next.Activity = next
	return s, nil
}

func encodeState(s *state) ([]byte, error) {
	img := fileImage{
		Format: FileFormat, Version: FileVersion, Seq: s.seq, Next: s.next,
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
