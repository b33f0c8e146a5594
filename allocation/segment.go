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
// and each archived job is one "LENGTH CRC JSON" line, as in the journal,
// with the refusals it met (a job refused and not completed when archived
// has a record of its refusals only). The last line, also "LENGTH CRC
// JSON", is the segment's allocation index: for each allocation, the byte
// offsets of the records that hold it, so one allocation's history reads
// its own records and no others. (Version 1 segments, and segments a
// repair cut short, have no index: readers read them through.)
// The snapshot keeps an index (name, records, size, CRC-32C of the file,
// job id range) and the balances and per-owner debits, so opening a store
// reads the snapshot and journal only: restart time and memory follow the
// live ledger (projects, allocations, executing jobs, credits), not its
// history. A completed job, History and Jobs read the segments when asked,
// one record at a time.
const (
	segmentMagic   = "hpcsched-allocation-segment 2\n"
	segmentMagicV1 = "hpcsched-allocation-segment 1\n" // no index, no refusals
)

// DefaultSegmentSize is the size at which a file store starts a new
// segment file (a single record larger than it gets a segment of its own).
const DefaultSegmentSize = 4 << 20

// segmentMeta is a segment's entry in the snapshot's index.
type segmentMeta struct {
	Name   string `json:"name"` // beside the snapshot
	Count  int    `json:"count"`
	Size   int64  `json:"size"`
	CRC    uint32 `json:"crc"`     // CRC-32C of the whole file
	MinJob JobID  `json:"min_job"` // the archived jobs' id range (a job lookup bisects
	MaxJob JobID  `json:"max_job"` // only the segments whose range holds the id)
	// Allocations are those the segment's jobs and activity belong to,
	// sorted, so reading one allocation's history skips the segments
	// without it (nil: not known, every reader reads the segment).
	Allocations []AllocationID `json:"allocations,omitempty"`
	// Index is the byte offset of the allocation index line, which
	// follows the records (0: none, every reader reads every record).
	Index int64 `json:"index,omitempty"`
	// Failures is how many refusals the records hold (Failures reads only
	// the segments that have some), MinRefused and MaxRefused the id range
	// of the jobs they refused: kept apart from the archived jobs' range,
	// so a refused job that waits long does not widen it.
	Failures   int   `json:"failures,omitempty"`
	MinRefused JobID `json:"min_refused,omitempty"`
	MaxRefused JobID `json:"max_refused,omitempty"`
}

// note counts record a in the segment's index entry: its job and
// refusal id ranges, records and refusals (job ids are at least 1, so a
// zero maximum means none yet).
func (m *segmentMeta) note(a archived) {
	id := a.Job.ID
	if a.hasJob() {
		if m.MaxJob == 0 {
			m.MinJob = id
		}
		m.MinJob, m.MaxJob = min(m.MinJob, id), max(m.MaxJob, id)
	}
	if len(a.Failures) > 0 {
		if m.Failures == 0 {
			m.MinRefused = id
		}
		m.MinRefused, m.MaxRefused = min(m.MinRefused, id), max(m.MaxRefused, id)
		m.Failures += len(a.Failures)
	}
	m.Count++
}

// recordsEnd is the byte offset after the last record.
func (m segmentMeta) recordsEnd() int64 {
	if m.Index > 0 {
		return m.Index
	}
	return m.Size
}

// holds reports whether the segment may hold records of allocation id.
func (m segmentMeta) holds(id AllocationID) bool {
	if m.Allocations == nil {
		return true
	}
	_, found := slices.BinarySearch(m.Allocations, id)
	return found
}

// allocationsOf adds the allocations of a's job, activity and refusals
// to set.
func allocationsOf(a archived, set map[AllocationID]bool) {
	if a.hasJob() {
		set[a.Job.Allocation] = true
	}
	for _, act := range a.Activity {
		set[act.Allocation] = true
	}
	for _, f := range a.Failures {
		set[f.Allocation] = true
	}
}

// archived is one segment record: a completed job, its activity and the
// refusals it met before it ran; or, for a job refused and not completed
// when it was archived, its refusals only (Job holds only the ID).
type archived struct {
	Job      Job        `json:"job"`
	Activity []Activity `json:"activity"`
	Failures []Failure  `json:"failures,omitempty"`
}

// hasJob reports whether the record holds the job's record, not only its
// refusals.
func (a archived) hasJob() bool { return a.Job.Status == Completed }

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
	crc := crc32.New(castagnoli())
	r := bufio.NewReaderSize(io.TeeReader(io.LimitReader(fh, m.Size), crc), 1<<16)
	fail := func(off int64, rec int, format string, args ...any) (int, int64, error) {
		return good, intact, &SegmentError{File: file, Offset: off, Record: rec, Reason: fmt.Sprintf(format, args...)}
	}
	head, err := r.ReadString('\n')
	if err := checkSegmentHead(head, err, m); err != nil {
		return fail(0, 0, "%v", err)
	}
	off := int64(len(head))
	intact = off
	for rec := 1; ; rec++ {
		if off == m.Index { // the allocation index: checked, not passed on
			n, err := readIndexLine(r, m)
			if err != nil {
				return fail(off, rec, "allocation index: %v", err)
			}
			off += n
			break
		}
		line, err := r.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil {
			return fail(off, rec, "cut short (%d bytes, no end of line)", len(line))
		}
		a, err := decodeArchived(line)
		if err != nil {
			return fail(off, rec, "%v", err)
		}
		off += int64(len(line))
		if m.Index > 0 && off > m.Index {
			return fail(off-int64(len(line)), rec, "runs past the allocation index at byte %d", m.Index)
		}
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

// checkSegmentHead checks a segment's first line: version 2, or version 1
// (which has no index).
func checkSegmentHead(head string, err error, m segmentMeta) error {
	switch {
	case err == nil && head == segmentMagic:
		return nil
	case err == nil && head == segmentMagicV1 && m.Index == 0:
		return nil
	}
	return fmt.Errorf("the first line is not %q", strings.TrimSpace(segmentMagic))
}

// decodeArchived checks and decodes one segment record line (with its newline).
func decodeArchived(line []byte) (archived, error) {
	var a archived
	body, err := checkLine(line[:len(line)-1])
	if err != nil {
		return a, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("JSON: %v", err)
	}
	return a, nil
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
	index     map[AllocationID][]int64 // the current segment's records by allocation
	allocs    map[AllocationID]bool    // one record's allocations
	ids       []AllocationID           // the same, as a list
}

// add appends record a, starting a new segment when the current one
// would pass the limit.
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
		w.start()
	}
	w.putArchived(line, a)
	return nil
}

// start begins the next segment.
func (w *segmentWriter) start() {
	w.buf = append(w.buf[:0], segmentMagic...)
	w.cur = segmentMeta{Name: fmt.Sprintf("%s.seg.%06d", w.base, w.next)}
	w.next++
	if w.index == nil {
		w.index = map[AllocationID][]int64{}
	}
}

// putArchived appends record a's line and counts it in the index entry.
func (w *segmentWriter) putArchived(line []byte, a archived) {
	w.put(line, w.allocationsOf(a))
	w.cur.note(a)
}

// put appends a record line, indexed under allocs.
func (w *segmentWriter) put(line []byte, allocs []AllocationID) {
	for _, id := range allocs {
		w.index[id] = append(w.index[id], int64(len(w.buf)))
	}
	w.buf = append(w.buf, line...)
}

// allocationsOf is the allocations of record a (in a buffer reused by
// the next call).
func (w *segmentWriter) allocationsOf(a archived) []AllocationID {
	if w.allocs == nil {
		w.allocs = map[AllocationID]bool{}
	}
	clear(w.allocs)
	allocationsOf(a, w.allocs)
	w.ids = w.ids[:0]
	for id := range w.allocs {
		w.ids = append(w.ids, id)
	}
	return w.ids
}

// flush writes the current segment durably: a temporary file, fsync,
// rename. A file of that name left by a compaction that failed before its
// snapshot was written is not listed anywhere and is replaced.
func (w *segmentWriter) flush() error {
	if w.cur.Count == 0 {
		return nil
	}
	w.cur.Allocations = slices.Sorted(maps.Keys(w.index))
	idx := segmentIndex{Allocations: make([]indexEntry, 0, len(w.index))}
	for _, id := range w.cur.Allocations {
		idx.Allocations = append(idx.Allocations, indexEntry{Allocation: id, Offsets: w.index[id]})
	}
	clear(w.index)
	body, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	w.cur.Index = int64(len(w.buf))
	w.buf = append(w.buf, encodeLine(body)...)
	w.cur.Size, w.cur.CRC = int64(len(w.buf)), crc32.Checksum(w.buf, castagnoli())
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
