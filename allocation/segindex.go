package allocation

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// segmentIndex is a segment's last line: for each allocation its records
// hold (by allocation), the byte offsets of those records (ascending).
type segmentIndex struct {
	Allocations []indexEntry `json:"allocations"`
}

type indexEntry struct {
	Allocation AllocationID `json:"allocation"`
	Offsets    []int64      `json:"offsets"`
}

// readIndexLine reads and checks the index line at r (the segment read up
// to m.Index), returning its length: it must end the file, and name
// allocations in order and record offsets inside the records.
func readIndexLine(r *bufio.Reader, m segmentMeta) (int64, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return 0, fmt.Errorf("cut short (%d bytes, no end of line)", len(line))
	}
	if _, err := decodeIndex(line, m); err != nil {
		return 0, err
	}
	return int64(len(line)), nil
}

// decodeIndex checks and decodes an index line (with its newline).
func decodeIndex(line []byte, m segmentMeta) (segmentIndex, error) {
	var idx segmentIndex
	body, err := checkLine(line[:len(line)-1])
	if err != nil {
		return idx, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&idx); err != nil {
		return idx, fmt.Errorf("JSON: %v", err)
	}
	first := int64(len(segmentMagic))
	for i, e := range idx.Allocations {
		if i > 0 && e.Allocation <= idx.Allocations[i-1].Allocation {
			return idx, fmt.Errorf("allocation %d out of order", e.Allocation)
		}
		for k, off := range e.Offsets {
			if off < first || off >= m.Index || (k > 0 && off <= e.Offsets[k-1]) {
				return idx, fmt.Errorf("allocation %d: record offset %d is not inside the records, in order", e.Allocation, off)
			}
		}
	}
	return idx, nil
}

// readIndex reads a segment's allocation index (m.Index > 0).
func readIndex(dir string, m segmentMeta) (segmentIndex, error) {
	file := filepath.Join(dir, m.Name)
	f, err := os.Open(file)
	if err != nil {
		return segmentIndex{}, &SegmentError{File: file, Reason: fmt.Sprintf("listed in the snapshot but cannot be read: %v", err)}
	}
	defer f.Close()
	line, err := io.ReadAll(io.NewSectionReader(f, m.Index, m.Size-m.Index))
	if err == nil && (len(line) == 0 || line[len(line)-1] != '\n') {
		err = fmt.Errorf("cut short (%d bytes, no end of line)", len(line))
	}
	var idx segmentIndex
	if err == nil {
		idx, err = decodeIndex(line, m)
	}
	if err != nil {
		return idx, &SegmentError{File: file, Offset: m.Index, Record: m.Count + 1, Reason: fmt.Sprintf("allocation index: %v", err)}
	}
	return idx, nil
}

// recordsOf calls f with each record of the segment that holds allocation
// id, in order, until f returns false: through the segment's index, so
// only those records are read and decoded (each checked); a segment
// without an index is read through.
func recordsOf(dir string, m segmentMeta, id AllocationID, f func(archived) bool) error {
	if err := m.checkName(); err != nil {
		return err
	}
	if m.Index == 0 {
		_, _, err := scanSegment(dir, m, f)
		return err
	}
	idx, err := readIndex(dir, m)
	if err != nil {
		return err
	}
	i, found := slices.BinarySearchFunc(idx.Allocations, id, func(e indexEntry, id AllocationID) int { return cmp.Compare(int64(e.Allocation), int64(id)) })
	if !found {
		return nil
	}
	file := filepath.Join(dir, m.Name)
	fh, err := os.Open(file)
	if err != nil {
		return &SegmentError{File: file, Reason: fmt.Sprintf("listed in the snapshot but cannot be read: %v", err)}
	}
	defer fh.Close()
	end := m.recordsEnd()
	r := bufio.NewReaderSize(nil, 4096) // one buffer for every record read
	for _, off := range idx.Allocations[i].Offsets {
		r.Reset(io.NewSectionReader(fh, off, end-off))
		line, err := r.ReadBytes('\n')
		if err != nil {
			return &SegmentError{File: file, Offset: off, Reason: fmt.Sprintf("cut short (%d bytes, no end of line)", len(line))}
		}
		a, err := decodeArchived(line)
		if err != nil {
			return &SegmentError{File: file, Offset: off, Reason: fmt.Sprintf("the record the allocation index names: %v", err)}
		}
		if !f(a) {
			return nil
		}
	}
	return nil
}
