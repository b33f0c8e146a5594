package allocation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// DefaultCompactEvery is how many journaled changes OpenFile's store
// makes before it writes a snapshot and empties the journal.
const DefaultCompactEvery = 1024

func (m *MemStore) journalPath() string { return m.path + ".journal" }

// openJournal opens the journal, replays the ops the snapshot does not
// include, and cuts off a torn last line (an append a crash interrupted,
// never acknowledged).
func (m *MemStore) openJournal() error {
	data, err := readLimited(m.journalPath())
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("%w: %v", ErrFile, err)
	}
	valid, n, err := replay(m.st, data)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrFile, m.journalPath(), err)
	}
	f, err := os.OpenFile(m.journalPath(), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFile, err)
	}
	if valid < int64(len(data)) {
		if err := f.Truncate(valid); err != nil {
			f.Close()
			return fmt.Errorf("%w: %v", ErrFile, err)
		}
	}
	m.journal, m.journalSize, m.sinceSnapshot = f, valid, n
	return nil
}

// replay applies the journal's ops after s.seq to s; it returns the
// length of the complete lines and how many ops it applied.
func replay(s *state, data []byte) (valid int64, applied int, err error) {
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return valid, applied, nil // a torn last line
		}
		var o op
		dec := json.NewDecoder(bytes.NewReader(data[:i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return 0, 0, fmt.Errorf("line %d: %v", line, err)
		}
		switch {
		case o.Seq <= s.seq: // already in the snapshot
		case o.Seq != s.seq+1:
			return 0, 0, fmt.Errorf("line %d: op %d follows op %d", line, o.Seq, s.seq)
		default:
			if _, keep, err := o.run(s); err != nil && !keep {
				return 0, 0, fmt.Errorf("line %d: op %d (%s) no longer applies: %v", line, o.Seq, o.Kind, err)
			}
			s.seq = o.Seq
			applied++
		}
		valid += int64(i + 1)
		data = data[i+1:]
	}
	return valid, applied, nil
}

// logOp appends o to the journal and fsyncs it. On failure the journal is
// cut back to its previous length, so the unacknowledged op is not
// replayed later; if even that fails the store refuses further writes.
func (m *MemStore) logOp(o *op) (err error) {
	line, err := json.Marshal(o)
	if err != nil {
		return err
	}
	line = append(line, '\n')
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

// maybeCompact writes a snapshot of the current state and empties the
// journal once enough ops have accumulated. The ops are already durable
// in the journal, so a failure here loses nothing and is retried after
// the next change; a journal not emptied holds only ops the snapshot
// includes, which replay skips.
func (m *MemStore) maybeCompact() {
	if m.sinceSnapshot < m.compactEvery {
		return
	}
	if err := m.persist(m.st); err != nil {
		return
	}
	if m.step("truncate") != nil || m.journal.Truncate(0) != nil || m.journal.Sync() != nil {
		return
	}
	m.journalSize, m.sinceSnapshot = 0, 0
}

func (m *MemStore) step(name string) error {
	if m.failAt != nil {
		return m.failAt(name)
	}
	return nil
}

// Close releases the journal; the store must not be written afterwards.
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
	m.broken = fmt.Errorf("allocation: store %s is closed", m.path)
	return err
}
