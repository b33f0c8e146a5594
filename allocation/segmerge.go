package allocation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A compaction archives a few hundred jobs; a segment of its own each
// would leave a site with thousands of small files (each an entry in the
// snapshot and a stat at every open). So a compaction rewrites the
// newest segment, when it is below the size limit, together with the new
// records into a new file (the next number), and the snapshot lists that
// file in the newest one's place: segments fill up to the limit and their
// number follows the archived bytes, not the compactions.
//
// The replaced segment is removed only once a snapshot that no longer
// lists it is durable; a crash before that leaves it beside the ledger,
// listed nowhere, and the next OpenFile removes it. Until then the old
// snapshot and the old segment are whole, so a crash at any step leaves a
// ledger that opens with every record.

// mergeSource is the newest segment as written, to merge: its records'
// lines in order with their job ids and allocations (from its index), so
// they are copied, not decoded and encoded again.
type mergeSource struct {
	meta    segmentMeta
	records []rawRecord
	bytes   int64 // of the records
}

type rawRecord struct {
	id     JobID
	line   []byte
	allocs []AllocationID
}

// readForMerge reads the newest segment of segs to merge, when it has an
// allocation index (version 2) and is below limit bytes; ok is false for
// any other, or one whose bytes are not those its index entry lists (a
// segment not merged is left as it is: its damage is reported when read).
func readForMerge(dir string, segs []segmentMeta, limit int64) (src mergeSource, ok bool) {
	if len(segs) == 0 {
		return src, false
	}
	m := segs[len(segs)-1]
	if m.Index < int64(len(segmentMagic)) || m.Index >= m.Size || m.Size >= limit || m.checkName() != nil {
		return src, false
	}
	data, err := readExactly(filepath.Join(dir, m.Name), m.Size)
	if err != nil || crc32.Checksum(data, castagnoli()) != m.CRC ||
		!bytes.HasPrefix(data, []byte(segmentMagic)) || data[len(data)-1] != '\n' {
		return src, false
	}
	idx, err := decodeIndex(data[m.Index:], m)
	if err != nil {
		return src, false
	}
	allocs := map[int64][]AllocationID{}
	for _, e := range idx.Allocations {
		for _, off := range e.Offsets {
			allocs[off] = append(allocs[off], e.Allocation)
		}
	}
	src.meta = m
	for off := int64(len(segmentMagic)); off < m.Index; {
		n := bytes.IndexByte(data[off:m.Index], '\n')
		if n < 0 {
			return src, false
		}
		line := data[off : off+int64(n)+1]
		id, err := recordID(line)
		if err != nil {
			return src, false
		}
		src.records = append(src.records, rawRecord{id: id, line: line, allocs: allocs[off]})
		off += int64(len(line))
	}
	src.bytes = m.Index - int64(len(segmentMagic))
	return src, len(src.records) == m.Count
}

// readExactly reads a file of size bytes (one buffer, as a compaction
// reads one a few megabytes large each time); a file of another size is
// an error.
func readExactly(file string, size int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() != size {
		return nil, fmt.Errorf("%s is not a file of %d bytes", file, size)
	}
	data := make([]byte, size)
	_, err = io.ReadFull(f, data)
	return data, err
}

// recordID is the job id of a record line: read from the start of its
// JSON, as the writer marshals it ({"job":{"job_id":N,...), else decoded.
func recordID(line []byte) (JobID, error) {
	_, rest, _ := bytes.Cut(line, []byte(" "))
	_, body, _ := bytes.Cut(rest, []byte(" "))
	if digits, ok := bytes.CutPrefix(body, []byte(`{"job":{"job_id":`)); ok {
		end := bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
		if end > 0 && digits[end] == ',' {
			if id, err := strconv.ParseUint(string(digits[:end]), 10, 64); err == nil {
				return JobID(id), nil
			}
		}
	}
	a, err := decodeArchived(line)
	return a.Job.ID, err
}

// writeMerged writes src's records and done's (both in job id order) as
// one new segment, in job id order, a job with records in both getting
// one record (see joinArchived), when together they fit in the writer's
// limit; merged is false (nothing written) when they do not.
func (w *segmentWriter) writeMerged(src mergeSource, done []archived) (merged bool, err error) {
	lines := make([][]byte, len(done))
	size := int64(len(segmentMagic)) + src.bytes
	for k, a := range done {
		body, err := json.Marshal(a)
		if err != nil {
			return false, err
		}
		lines[k] = encodeLine(body)
		size += int64(len(lines[k]))
	}
	if size > w.limit {
		return false, nil
	}
	old := src.meta
	// One buffer for the records and the index line (a few bytes an
	// offset), not one grown by doubling.
	w.buf = make([]byte, 0, size+int64(old.Count+len(done))*24+4096)
	w.start()
	w.cur.Count, w.cur.MinJob, w.cur.MaxJob = old.Count, old.MinJob, old.MaxJob
	w.cur.Failures, w.cur.MinRefused, w.cur.MaxRefused = old.Failures, old.MinRefused, old.MaxRefused
	recs, i, k := src.records, 0, 0
	for i < len(recs) || k < len(done) {
		switch {
		case k == len(done) || (i < len(recs) && recs[i].id < done[k].Job.ID):
			w.put(recs[i].line, recs[i].allocs)
			i++
		case i == len(recs) || done[k].Job.ID < recs[i].id:
			w.putArchived(lines[k], done[k])
			k++
		default:
			if err := w.putJoined(recs[i].line, done[k]); err != nil {
				return false, err
			}
			i, k = i+1, k+1
		}
	}
	return true, w.flush()
}

// putJoined writes the record joining an old record's line and a new
// record of the same job. The index entry already counts the old record
// (its ranges and refusals); the new one adds its own, and the two are
// one record now.
func (w *segmentWriter) putJoined(oldLine []byte, newer archived) error {
	older, err := decodeArchived(oldLine)
	if err != nil {
		return err
	}
	j := joinArchived(older, newer)
	body, err := json.Marshal(j)
	if err != nil {
		return err
	}
	w.put(encodeLine(body), w.allocationsOf(j))
	w.cur.note(newer)
	w.cur.Count--
	return nil
}

// joinArchived is one record for a job archived in an older compaction
// (older) and again now (newer), so a segment keeps one record per job
// and a lookup finds what it found in the newer of two segments: the
// newer job record when there is one (a job forgotten and run again, or
// refused before and completed now), else the older; the activity of both
// (every archived activity is history); the refusals of both, in
// attempt order (the newer ones are later attempts).
func joinArchived(older, newer archived) archived {
	j := archived{Job: newer.Job}
	if !newer.hasJob() {
		j.Job = older.Job
	}
	j.Activity = append(slices.Clip(older.Activity), newer.Activity...)
	j.Failures = append(slices.Clip(older.Failures), newer.Failures...)
	if len(j.Failures) == 0 {
		j.Failures = nil
	}
	return j
}

// removeSegments removes the files of segments a durable snapshot no
// longer lists (a failure leaves a file that the next open removes).
func removeSegments(dir string, gone []segmentMeta) {
	for _, m := range gone {
		if m.checkName() == nil {
			os.Remove(filepath.Join(dir, m.Name))
		}
	}
}

// removeUnlisted removes the segment files beside path that the snapshot
// does not list and that are numbered below the next segment: segments a
// merge replaced, left by a crash before their removal. (Those numbered
// from the next on are a failed compaction's and are written again.)
func removeUnlisted(path string, segs []segmentMeta) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	listed := make(map[string]bool, len(segs))
	for _, m := range segs {
		listed[m.Name] = true
	}
	next := nextSegment(segs)
	for _, e := range entries {
		if n, ok := segmentNumber(e.Name(), base); ok && n < next && !listed[e.Name()] && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// segmentNumber is NNNNNN of a file named base.seg.NNNNNN (digits only,
// as the writer names them: a repair's ".damaged" copy is not one).
func segmentNumber(name, base string) (int, bool) {
	digits, ok := strings.CutPrefix(name, base+".seg.")
	if !ok || len(digits) < 6 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
