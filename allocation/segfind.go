package allocation

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A segment's records are in job id order (a compaction archives them in
// that order), so a lookup bisects the file by byte offset, reading a
// few records, rather than reading the segment through: a pre-debit of a
// job id inside an archived range costs a few reads, not a segment.

// bisectTail is the span below which a lookup reads records in order.
const bisectTail = 16 << 10

// findInSegment is the archived record of job id in the segment, if any
// (a segment holds at most one per job). Records it reads are checked
// (length, checksum); damage is a *SegmentError with its offset (Record
// 0: a lookup does not count them).
func findInSegment(dir string, m segmentMeta, id JobID) (archived, bool, error) {
	var none archived
	if err := m.checkName(); err != nil {
		return none, false, err
	}
	file := filepath.Join(dir, m.Name)
	f, err := os.Open(file)
	if err != nil {
		return none, false, &SegmentError{File: file, Reason: fmt.Sprintf("listed in the snapshot but cannot be read: %v", err)}
	}
	defer f.Close()
	seg := segReader{f: f, file: file, size: m.recordsEnd()}
	lo, hi := int64(len(segmentMagic)), seg.size // the record sought starts in [lo, hi)
	for hi-lo > bisectTail {
		mid := lo + (hi-lo)/2
		start, end, a, err := seg.recordFrom(mid)
		switch {
		case err != nil:
			return none, false, err
		case start >= hi:
			hi = mid
		case a.Job.ID == id:
			return a, true, nil
		case a.Job.ID < id:
			lo = end
		default:
			hi = mid
		}
	}
	for lo < hi {
		start, end, a, err := seg.recordFrom(lo)
		switch {
		case err != nil:
			return none, false, err
		case start >= hi || a.Job.ID > id:
			return none, false, nil
		case a.Job.ID == id:
			return a, true, nil
		}
		lo = end
	}
	return none, false, nil
}

type segReader struct {
	f    *os.File
	file string
	size int64
}

// recordFrom decodes the first record starting at or after off (off past
// the header); start is size when none does.
func (s segReader) recordFrom(off int64) (start, end int64, a archived, err error) {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, off-1, s.size-off+1), 4096)
	skip, err := r.ReadBytes('\n') // the end of the record holding off-1
	start = off - 1 + int64(len(skip))
	if err != nil || start >= s.size {
		return s.size, s.size, a, nil
	}
	fail := func(format string, args ...any) (int64, int64, archived, error) {
		return 0, 0, a, &SegmentError{File: s.file, Offset: start, Reason: fmt.Sprintf(format, args...)}
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fail("cut short (%d bytes, no end of line)", len(line))
	}
	if a, err = decodeArchived(line); err != nil {
		return fail("%v", err)
	}
	return start, start + int64(len(line)), a, nil
}
