package allocation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// readSnapshot streams the snapshot at path into a state: the file's size
// is checked against MaxFileSize before reading, and the image is decoded
// one record at a time, so reading holds the state being built and one
// record, never the file. The length and checksum of the header are
// checked as the bytes go by.
func readSnapshot(path string) (*state, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case info.Size() > MaxFileSize:
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxFileSize)
	}
	s, err := decodeSnapshot(bufio.NewReaderSize(io.LimitReader(f, MaxFileSize), 1<<16), info.Size())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errSnapshot, path, err)
	}
	s.dir = filepath.Dir(path)
	return s, nil
}

var errSnapshot = errors.New("snapshot")

// decodeState decodes a snapshot held in memory (the fuzz target's way).
func decodeState(data []byte) (*state, error) {
	return decodeSnapshot(bufio.NewReader(bytes.NewReader(data)), int64(len(data)))
}

// decodeSnapshot reads a snapshot of size bytes: the version 2 header
// line and its image, or a bare version 1 image.
func decodeSnapshot(r *bufio.Reader, size int64) (*state, error) {
	first, err := r.Peek(1)
	if err != nil {
		return nil, fmt.Errorf("empty: %v", err)
	}
	if first[0] == '{' { // version 1: no header, no checksum
		return decodeImage(json.NewDecoder(r))
	}
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("the first line is not a %q header", FileFormat+" VERSION LENGTH CRC")
	}
	var version int
	var n int64
	var sum uint32
	if _, err := fmt.Sscanf(string(line), FileFormat+" %d %d %x\n", &version, &n, &sum); err != nil {
		return nil, fmt.Errorf("the first line %.80q is not %q", line, FileFormat+" VERSION LENGTH CRC")
	}
	switch {
	case version > FileVersion:
		return nil, &versionError{version: version, reads: fmt.Sprintf("versions 2 to %d", FileVersion)}
	case version < 2: // version 1 had no header: no hpcsched wrote this one
		return nil, fmt.Errorf("version %d, want 2 to %d", version, FileVersion)
	case n != size-int64(len(line)):
		return nil, fmt.Errorf("the header gives %d bytes but %d follow: cut short or grown", n, size-int64(len(line)))
	}
	crc := crc32.New(castagnoli())
	body := io.TeeReader(io.LimitReader(r, n), crc)
	s, err := decodeImage(json.NewDecoder(body))
	if _, cerr := io.Copy(io.Discard, body); err == nil && cerr != nil {
		err = cerr
	}
	if sumErr := checkSum(crc, sum); sumErr != nil {
		return nil, sumErr // a changed file explains any decoding error too
	}
	return s, err
}

func checkSum(h hash.Hash32, want uint32) error {
	if got := h.Sum32(); got != want {
		return fmt.Errorf("checksum %08x does not match the image's bytes (%08x): it was changed", want, got)
	}
	return nil
}

// decodeImage reads the image object key by key, each table's records one
// at a time, into a state.
func decodeImage(dec *json.Decoder) (*state, error) {
	dec.DisallowUnknownFields()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	s := newState()
	var format string
	var version int
	var next nextIDs
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "format":
			err = dec.Decode(&format)
		case "version":
			err = dec.Decode(&version)
		case "seq":
			err = dec.Decode(&s.seq)
		case "next":
			err = dec.Decode(&next)
		case "projects":
			err = eachRecord(dec, func(p Project) error { s.projects.ReplaceOrInsert(p); s.accounts.ReplaceOrInsert(p); return nil })
		case "allocations":
			err = eachRecord(dec, func(a Allocation) error { s.allocs.ReplaceOrInsert(a); s.periods.ReplaceOrInsert(a); return nil })
		case "jobs":
			err = eachRecord(dec, func(j Job) error { s.putJob(j); return nil })
		case "segments":
			err = eachRecord(dec, func(m segmentMeta) error {
				s.segs = append(s.segs, m)
				return m.checkName()
			})
		case "forgotten":
			err = eachRecord(dec, func(id JobID) error { s.forgotten.ReplaceOrInsert(id); return nil })
		case "balances":
			err = eachRecord(dec, func(b Balance) error { s.balances.ReplaceOrInsert(b); return nil })
		case "debits":
			err = eachRecord(dec, func(d OwnerDebit) error { s.debits.ReplaceOrInsert(d); return nil })
		case "failures":
			err = eachRecord(dec, func(f Failure) error {
				f.Attempt = max(f.Attempt, 1) // written before refusals were retried
				s.failures.ReplaceOrInsert(f)
				return nil
			})
		case "activity":
			err = eachRecord(dec, func(a Activity) error {
				s.activity.ReplaceOrInsert(a)
				s.activityN++
				return nil
			})
		default:
			return nil, fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the image")
	}
	if format != FileFormat || version < 1 || version > FileVersion {
		return nil, fmt.Errorf("format %q version %d, want %q version %d", format, version, FileFormat, FileVersion)
	}
	s.next = next
	if version < 3 {
		return s, s.recomputeTotals()
	}
	return s, nil
}

// recomputeTotals derives the balances and per-owner debits of a version
// 1 or 2 image, which holds the whole history and no totals.
func (s *state) recomputeTotals() error {
	live := s.activity
	s.activity, s.activityN = live.Clone(), 0
	s.activity.Clear(false)
	next := s.next.Activity
	var err error
	live.Ascend(func(a Activity) bool {
		s.next.Activity = a.ID // apply numbers it; keep the stored id
		if _, err = s.apply(a); err != nil {
			err = fmt.Errorf("activity %d: %v", a.ID, err)
		}
		return err == nil
	})
	s.next.Activity = next
	if err != nil {
		return err
	}
	s.jobs.Ascend(func(j Job) bool {
		if err = s.addDebit(j); err != nil {
			err = fmt.Errorf("job %d: %v", j.ID, err)
		}
		return err == nil
	})
	return err
}

// addDebit adds a completed job to the per-owner debits.
func (s *state) addDebit(j Job) error {
	if j.Status != Completed {
		return nil
	}
	d, _ := s.debits.Get(OwnerDebit{Allocation: j.Allocation, UID: j.UID})
	d.Allocation, d.UID, d.Jobs = j.Allocation, j.UID, d.Jobs+1
	var err error
	if d.Amount, err = add(d.Amount, j.Debited); err != nil {
		return err
	}
	s.debits.ReplaceOrInsert(d)
	return nil
}

// eachRecord decodes a JSON array (or null) one element at a time.
func eachRecord[T any](dec *json.Decoder, f func(T) error) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array, got %v", tok)
	}
	for i := 0; dec.More(); i++ {
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("record %d: %v", i+1, err)
		}
		if err := f(v); err != nil {
			return fmt.Errorf("record %d: %v", i+1, err)
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}
