package slurmconf

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineScanner reads the physical lines of one file as they come, holding
// the input budget (Limits.InputBytes) and MaxLineLength while it reads: it
// stops at the first byte past either, so an endless input such as
// /dev/zero costs at most one line's worth of reading and memory.
type lineScanner struct {
	r    *bufio.Reader
	bud  *budget
	file string
	line int // the number of the last line returned
	off  int // the byte offset of the next line
	buf  []byte
}

func newLineScanner(r io.Reader, bud *budget, file string) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(r, 64<<10), bud: bud, file: file}
}

// next returns the next line without its "\n" or "\r\n", and where it
// starts; io.EOF after the last. A UTF-8 byte order mark starting the
// file is skipped (its bytes still count in the first line's columns, as
// go/scanner's do). The returned bytes are valid until the next call.
func (s *lineScanner) next() ([]byte, Pos, error) {
	pos := Pos{File: s.file, Line: s.line + 1, Column: 1, Offset: s.off}
	s.buf = s.buf[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(chunk) > 0 {
			if berr := s.bud.take(len(chunk), pos); berr != nil {
				return nil, pos, berr
			}
			// a line may be followed by "\r\n"; anything longer is over
			if len(s.buf)+len(chunk) > MaxLineLength+2 {
				return nil, pos, budgetAt(pos, "line longer than %d bytes (MaxLineLength)", MaxLineLength)
			}
			s.buf = append(s.buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(s.buf) > 0 {
			err = nil // a last line without "\n"
		}
		if err != nil {
			if err == io.EOF {
				return nil, pos, io.EOF
			}
			return nil, pos, errAt(pos, "read: %v", err)
		}
		break
	}
	s.line++
	s.off += len(s.buf)
	text := bytes.TrimSuffix(bytes.TrimSuffix(s.buf, []byte("\n")), []byte("\r"))
	if pos.Line == 1 && bytes.HasPrefix(text, []byte(bom)) {
		text = text[len(bom):]
		pos.Column, pos.Offset = len(bom)+1, len(bom)
	}
	return text, pos, nil
}
