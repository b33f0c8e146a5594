package allocation

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// FileReport is what CheckFile or RepairFile found in a ledger's files.
type FileReport struct {
	// SnapshotSeq is the last op the snapshot includes (-1: no snapshot).
	SnapshotSeq int64 `json:"snapshot_seq"`
	// Applied is how many journal ops after the snapshot are intact and
	// apply; LastSeq the last of them (or the snapshot's).
	Applied int   `json:"applied"`
	LastSeq int64 `json:"last_seq"`
	// Damage is the first problem found ("" when the files are whole);
	// LostBytes how much of the journal follows the intact records.
	Damage    string `json:"damage,omitempty"`
	LostBytes int64  `json:"lost_bytes"`
	// Kept names the file RepairFile moved the damaged journal to.
	Kept string `json:"kept,omitempty"`
	// Segments is how many segment files the snapshot lists and
	// ArchivedJobs how many jobs their intact records hold; SegmentDamage names
	// each damaged segment (file, offset, record), the first of them in
	// Damage too when the journal is whole. RepairFile rewrites a damaged
	// segment with its intact records, keeping the damaged file beside
	// (KeptSegments); balances do not change (the snapshot holds them),
	// only the history of the lost records is gone.
	Segments      int      `json:"segments"`
	ArchivedJobs  int      `json:"archived_jobs"`
	SegmentDamage []string `json:"segment_damage,omitempty"`
	KeptSegments  []string `json:"kept_segments,omitempty"`

	journalDamaged bool
	fixes          []segmentFix
}

// segmentFix is what a repair keeps of a damaged segment: its first good
// records, intact bytes, and their job id range.
type segmentFix struct {
	index, good int
	intact      int64
	meta        segmentMeta // the intact records' ranges and counts
	allocs      map[AllocationID]bool
}

// CheckFile reads the ledger at path as OpenFile would and reports what
// is intact and the first damage, changing nothing. It takes the ledger's
// lock, so it refuses (*LockedError) while a server has the ledger open.
// The error is for files it cannot read at all (a damaged snapshot) and
// for a path where no ledger is (neither it nor its journal exists:
// ErrFile, also matching fs.ErrNotExist); nothing is created then, not
// even the lock file.
func CheckFile(path string) (FileReport, error) {
	m, rep, err := salvage(path)
	if m != nil && m.lock != nil {
		m.lock.Close()
	}
	return rep, err
}

// RepairFile keeps what CheckFile finds intact: the snapshot and the
// journal's records before the first damage become a new snapshot and an
// empty journal; the damaged journal is kept beside (Kept) as evidence.
// A missing journal is accepted as the loss of the changes after the
// snapshot. A damaged snapshot is not repaired (restore it from a backup):
// the error says so. A path where no ledger is fails as for CheckFile.
func RepairFile(path string) (FileReport, error) {
	m, rep, err := salvage(path)
	if m != nil && m.lock != nil {
		defer m.lock.Close()
	}
	if err != nil || rep.Damage == "" {
		return rep, err
	}
	if rep.SnapshotSeq < 0 && rep.LastSeq == 0 && rep.LostBytes > 0 {
		return rep, fmt.Errorf("%w: snapshot %s is missing and its journal does not start the ledger: restore the snapshot from a backup", ErrFile, path)
	}
	if err := m.repairSegments(&rep); err != nil {
		return rep, err
	}
	if _, serr := os.Stat(m.journalPath()); serr == nil && (rep.journalDamaged || len(rep.fixes) == 0) {
		rep.Kept = fmt.Sprintf("%s.damaged-%d", m.journalPath(), rep.LastSeq)
		if err := os.Rename(m.journalPath(), rep.Kept); err != nil {
			return rep, err
		}
	}
	if err := m.startJournal(); err != nil {
		return rep, err
	}
	if m.journal != nil {
		m.journal.Close()
	}
	return rep, nil
}

// checkLedgerExists refuses, before a lock file is made, a path where no
// ledger was ever opened: OpenFile writes a snapshot and a journal when it
// makes one, so with neither there is nothing to check or repair (a typo
// reported as "no damage found" would mislead).
func checkLedgerExists(path string) error {
	for _, p := range []string{path, path + ".journal"} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return fmt.Errorf("%w: no ledger at %s (neither it nor %s.journal exists): %w", ErrFile, path, path, fs.ErrNotExist)
}

// salvage locks and reads the ledger, applying the journal up to its
// first damage.
func salvage(path string) (*MemStore, FileReport, error) {
	rep := FileReport{SnapshotSeq: -1}
	if err := checkLedgerPath(path); err != nil {
		return nil, rep, err
	}
	if err := checkLedgerExists(path); err != nil {
		return nil, rep, err
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, rep, err
	}
	m := &MemStore{st: newState(), path: path, compactEvery: DefaultCompactEvery, lock: lock}
	m.st.dir = filepath.Dir(path)
	st, err := readSnapshot(path)
	snapshot := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.As(err, new(*versionError)):
		return m, rep, fmt.Errorf("%w: %v", ErrFile, err)
	case err != nil:
		return m, rep, fmt.Errorf("%w: %v (restore the snapshot from a backup)", ErrFile, err)
	default:
		m.st = st
		rep.SnapshotSeq = m.st.seq
	}
	journal, err := readLimited(m.journalPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if snapshot {
			rep.Damage = fmt.Sprintf("journal %s is missing", m.journalPath())
		}
	case err != nil:
		return m, rep, fmt.Errorf("%w: %v", ErrFile, err)
	default:
		var je *JournalError
		legacy, n, err := replay(m.st, m.journalPath(), journal)
		rep.Applied = n
		switch {
		case errors.As(err, &je):
			rep.Damage, rep.LostBytes = je.Error(), int64(len(journal))-je.Offset
			rep.journalDamaged = true
			rep.Applied = int(m.st.seq - max(rep.SnapshotSeq, 0))
		case err != nil:
			return m, rep, err
		case !snapshot && !legacy:
			rep.Damage = fmt.Sprintf("snapshot %s is missing", path)
		}
	}
	rep.LastSeq = m.st.seq
	checkArchive(m.st, &rep)
	return m, rep, nil
}

// checkArchive reads every segment through, record by record.
func checkArchive(s *state, rep *FileReport) {
	rep.Segments = len(s.segs)
	for i, meta := range s.segs {
		fix := segmentFix{index: i, allocs: map[AllocationID]bool{}}
		good, intact, err := scanSegment(s.dir, meta, func(a archived) bool {
			fix.meta.note(a)
			allocationsOf(a, fix.allocs)
			if a.hasJob() {
				rep.ArchivedJobs++
			}
			return true
		})
		if err == nil {
			continue
		}
		fix.good, fix.intact = good, intact
		rep.fixes = append(rep.fixes, fix)
		rep.SegmentDamage = append(rep.SegmentDamage, err.Error())
		if rep.Damage == "" {
			rep.Damage = err.Error()
		}
	}
}

// readPrefix reads the first n bytes of file.
func readPrefix(file string, n int64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	_, err = io.ReadFull(f, buf)
	return buf, err
}

// repairSegments rewrites each damaged segment with its intact records
// (dropping it from the index when none is), the damaged file kept
// beside; the state's index then lists what was kept.
func (m *MemStore) repairSegments(rep *FileReport) error {
	if len(rep.fixes) == 0 {
		return nil
	}
	segs := slices.Clone(m.st.segs)
	drop := map[int]bool{}
	for _, fix := range rep.fixes {
		meta := segs[fix.index]
		file := filepath.Join(m.st.dir, meta.Name)
		prefix, err := readPrefix(file, fix.intact)
		if err != nil {
			return err
		}
		if _, err := os.Lstat(file); err == nil {
			kept := file + ".damaged"
			if err := os.Rename(file, kept); err != nil {
				return err
			}
			rep.KeptSegments = append(rep.KeptSegments, kept)
		}
		if fix.good == 0 {
			drop[fix.index] = true
			continue
		}
		if err := writeDurably(m.st.dir, meta.Name, prefix, m.step); err != nil {
			return err
		}
		segs[fix.index] = segmentMeta{Name: meta.Name, Count: fix.good, Size: fix.intact,
			CRC: crc32.Checksum(prefix, castagnoli()), MinJob: fix.meta.MinJob, MaxJob: fix.meta.MaxJob,
			Failures: fix.meta.Failures, MinRefused: fix.meta.MinRefused, MaxRefused: fix.meta.MaxRefused,
			Allocations: slices.Sorted(maps.Keys(fix.allocs))} // no index: read through
	}
	m.st.segs = nil
	for i, meta := range segs {
		if !drop[i] {
			m.st.segs = append(m.st.segs, meta)
		}
	}
	return syncDir(m.st.dir)
}
