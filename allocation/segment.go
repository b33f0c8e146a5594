package allocation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Completed jobs leave the snapshot: each compaction of a file store moves
// the completed jobs, with the activity that records them (pre-debit,
// release, debit), into segment files beside the snapshot, PATH.seg.NNNNNN.
// A segment is written once (temporary file, fsync, rename) before the
// snapshot that lists it, and never changed afterwards. Its first line is
//
//	hpcsched-allocation-segment 1
//
// and each archived job is one "LENGTH CRC JSON" line, as in the journal.
// The snapshot keeps an index (name, records, size, CRC-32C of the file,
// job id range) and the balances and per-owner debits, so opening a store
// reads the snapshot and journal only: restart time and memory follow the
// live ledger (projects, allocations, executing jobs, credits), not its
// history. A completed job, History and Jobs read the segments when asked,
// one record at a time.
const segmentMagic = "hpcsched-allocation-segment 1\n"

// DefaultSegmentSize is the size at which a file store starts a new
// segment file (a single record larger than it gets a segment of its own).
const DefaultSegmentSize = 4 << 20

// segmentMeta is a segment's entry in the snapshot's index.
type segmentMeta struct {
	Name   string `json:"name"` // beside the snapshot
	Count  int    `json:"count"`
	Size   int64  `json:"size"`
	CRC    uint32 `json:"crc"` // CRC-32C of the whole file
	MinJob JobID  `json:"min_job"`
	MaxJob JobID  `json:"max_job"`
	// Allocations are those the segment's jobs and activity belong to,
	// sorted, so reading one allocation's history skips the segments
	// without it (nil: not known, every reader reads the segment).
	Allocations []AllocationID `json:"allocations,omitempty"`
}

// holds reports whether the segment may hold records of allocation id.
func (m segmentMeta) holds(id AllocationID) bool {
	if m.Allocations == nil {
		return true
	}
	_, found := slices.BinarySearch(m.Allocations, id)
	return found
}

// allocationsOf adds the allocations of a's job and activity to set.
func allocationsOf(a archived, set map[AllocationID]bool) {
	set[a.Job.Allocation] = true
	for _, act := range a.Activity {
		set[act.Allocation] = true
	}
}

// archived is one segment record: a completed job and its activity.
type archived struct {
	Job      Job        `json:"job"`
	Activity []Activity `json:"activity"`
}

// SegmentError is damage found in a segment file: the file, the byte
// offset and number (1 for the first) of the record, and what is wrong.
// It matches ErrFile.
type SegmentError struct {
	File   string
	Offset int64
	Record int
	Reason string
}

// Error names the file, record and offset.
func (e *SegmentError) Error() string {
	return fmt.Sprintf("allocation: segment %s: record %d at byte offset %d: %s", e.File, e.Record, e.Offset, e.Reason)
}

// Unwrap makes a *SegmentError match ErrFile.
func (e *SegmentError) Unwrap() error { return ErrFile }

// checkName refuses an index entry that is not a plain file name (a
// changed snapshot must not make the store read elsewhere).
// It also bounds what reading the segment may allocate: MaxFileSize.
func (m segmentMeta) checkName() error {
	if m.Size < 0 || m.Size > MaxFileSize {
		return fmt.Errorf("segment %q: size %d is not within 0-%d bytes", m.Name, m.Size, MaxFileSize)
	}
	if m.Name == "" || filepath.Base(m.Name) != m.Name || m.Name == "." || m.Name == ".." || strings.ContainsRune(m.Name, os.PathSeparator) {
		return fmt.Errorf("segment name %q is not a file name", m.Name)
	}
	return nil
}

// statSegment checks that the segment exists with its indexed size.
func statSegment(dir string, m segmentMeta) error {
	if err := m.checkName(); err != nil {
		return err
	}
	file := filepath.Join(dir, m.Name)
	info, err := os.Stat(file)
	switch {
	case err != nil:
		return &SegmentError{File: file, Reason: fmt.Sprintf("listed in the snapshot but cannot be read: %v", err)}
	case !info.Mode().IsRegular():
		return &SegmentError{File: file, Reason: "not a regular file"}
	case info.Size() != m.Size:
		return &SegmentError{File: file, Offset: min(info.Size(), m.Size), Reason: fmt.Sprintf("%d bytes, the snapshot lists %d: cut short or grown", info.Size(), m.Size)}
	}
	return nil
}

// scanSegment reads the segment's records in order, calling f with each
// until f returns false; it holds one record at a time. It checks each
// record's length and checksum; when it reads to the end it also checks
// the count, size and checksum of the whole file against the index.
// intact is the byte offset after the last good record and good how many
// records precede it (what a repair keeps).
func scanSegment(dir string, m segmentMeta, f func(archived) bool) (good int, intact int64, err error) {
	if err := m.checkName(); err != nil {
		return 0, 0, err
	}
	file := filepath.Join(dir, m.Name)
	fh, err := os.Open(file)
	if err != nil {
		return 0, 0, &SegmentError{File: file, Reason: fmt.Sprintf("listed in the snapshot but cannot be read: %v", err)}
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return 0, 0, &SegmentError{File: file, Reason: "not a regular file"}
	}
	crc := crc32.New(castagnoli)
	r := bufio.NewReaderSize(io.TeeReader(io.LimitReader(fh, m.Size), crc), 1<<16)
	fail := func(off int64, rec int, format string, args ...any) (int, int64, error) {
		return good, intact, &SegmentError{File: file, Offset: off, Record: rec, Reason: fmt.Sprintf(format, args...)}
	}
	head, err := r.ReadString('\n')
	if err != nil || head != segmentMagic {
		return fail(0, 0, "the first line is not %q", strings.TrimSpace(segmentMagic))
	}
	off := int64(len(head))
	intact = off
	for rec := 1; ; rec++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil {
			return fail(off, rec, "cut short (%d bytes, no end of line)", len(line))
		}
		body, err := checkLine(line[:len(line)-1])
		if err != nil {
			return fail(off, rec, "%v", err)
		}
		var a archived
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return fail(off, rec, "JSON: %v", err)
		}
		off += int64(len(line))
		good, intact = rec, off
		if !f(a) {
			return good, intact, nil
		}
	}
	switch {
	case off != m.Size || info.Size() != m.Size:
		return fail(off, good+1, "%d bytes, the snapshot lists %d: cut short or grown", info.Size(), m.Size)
	case good != m.Count:
		return fail(off, good+1, "%d records, the snapshot lists %d", good, m.Count)
	case crc.Sum32() != m.CRC:
		return fail(0, 0, "checksum %08x does not match the file's bytes (%08x): it was changed", m.CRC, crc.Sum32())
	}
	return good, intact, nil
}

// segmentWriter writes archived records into new segment files of at most
// limit bytes each, numbered after the last one the snapshot lists.
type segmentWriter struct {
	dir, base string
	limit     int64
	next      int
	step      func(string) error
	metas     []segmentMeta
	buf       []byte
	cur       segmentMeta
	allocs    map[AllocationID]bool
}

func (w *segmentWriter) add(a archived) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	line := encodeLine(body)
	if w.cur.Count > 0 && int64(len(w.buf)+len(line)) > w.limit {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.cur.Count == 0 {
		w.buf = append(w.buf[:0], segmentMagic...)
		w.cur = segmentMeta{Name: fmt.Sprintf("%s.seg.%06d", w.base, w.next), MinJob: a.Job.ID, MaxJob: a.Job.ID}
		w.next++
	}
	w.buf = append(w.buf, line...)
	if w.allocs == nil {
		w.allocs = map[AllocationID]bool{}
	}
	allocationsOf(a, w.allocs)
	w.cur.Count++
	w.cur.MinJob, w.cur.MaxJob = min(w.cur.MinJob, a.Job.ID), max(w.cur.MaxJob, a.Job.ID)
	return nil
}

// flush writes the current segment durably: a temporary file, fsync,
// rename. A file of that name left by a compaction that failed before its
// snapshot was written is not listed anywhere and is replaced.
func (w *segmentWriter) flush() error {
	if w.cur.Count == 0 {
		return nil
	}
	w.cur.Size, w.cur.CRC = int64(len(w.buf)), crc32.Checksum(w.buf, castagnoli)
	w.cur.Allocations = slices.Sorted(maps.Keys(w.allocs))
	clear(w.allocs)
	if err := writeDurably(w.dir, w.cur.Name, w.buf, w.step); err != nil {
		return fmt.Errorf("allocation: segment %s: %w", filepath.Join(w.dir, w.cur.Name), err)
	}
	w.metas = append(w.metas, w.cur)
	w.cur = segmentMeta{}
	return nil
}

// writeDurably writes data to dir/name through a fsynced temporary file
// renamed over it.
func writeDurably(dir, name string, data []byte, step func(string) error) error {
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	if err = step("segment"); err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
