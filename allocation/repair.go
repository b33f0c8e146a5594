package allocation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
}

// CheckFile reads the ledger at path as OpenFile would and reports what
// is intact and the first damage, changing nothing. It takes the ledger's
// lock, so it refuses (*LockedError) while a server has the ledger open.
// The error is for files it cannot read at all (a damaged snapshot).
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
// the error says so.
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
	if _, serr := os.Stat(m.journalPath()); serr == nil {
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

// salvage locks and reads the ledger, applying the journal up to its
// first damage.
func salvage(path string) (*MemStore, FileReport, error) {
	rep := FileReport{SnapshotSeq: -1}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, rep, err
	}
	m := &MemStore{st: newState(), path: path, compactEvery: DefaultCompactEvery, lock: lock}
	st, err := readSnapshot(path)
	snapshot := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
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
			rep.Applied = int(m.st.seq - max(rep.SnapshotSeq, 0))
		case err != nil:
			return m, rep, err
		case !snapshot && !legacy:
			rep.Damage = fmt.Sprintf("snapshot %s is missing", path)
		}
	}
	rep.LastSeq = m.st.seq
	return m, rep, nil
}
