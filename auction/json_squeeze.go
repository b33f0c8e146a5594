package auction

import (
	"fmt"
	"io"
	"sort"
)

// MaxTokenBytes is the longest string, number or literal ReadJSON
// accepts (names and parameters are short; a longer token is refused
// while it is read, before it is buffered).
const MaxTokenBytes = 1 << 16

// squeezeRun is the longest run of whitespace between tokens that
// reaches the JSON decoder; longer runs are cut to it. encoding/json's
// Decoder scans the whitespace it has buffered again after every read
// that ends inside it, so a long run cost time quadratic in its length
// (53 s of CPU on 64 MB of spaces) and a buffer as large.
const squeezeRun = 4096

// squeezer passes JSON through to the decoder with long whitespace runs
// cut and every token's length checked as it is read. It records where
// it cut, so that offsets in the cut stream map back to the input's.
type squeezer struct {
	r       io.Reader
	buf     []byte
	inStr   bool
	escape  bool
	token   int   // bytes of the current string or bare token
	space   int   // length of the current whitespace run
	read    int64 // input bytes read
	out     int64 // bytes passed on
	cuts    []cut // where the output skipped input bytes, ascending
	err     error // a budget error, reported as such by ReadJSON
	dropped int64
}

type cut struct{ at, dropped int64 } // output offset, input bytes dropped before it

func newSqueezer(r io.Reader) *squeezer { return &squeezer{r: r, buf: make([]byte, 32<<10)} }

// Read fills p with the next bytes of the squeezed stream.
func (s *squeezer) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := 0
	for n == 0 && len(p) > 0 {
		m, err := s.r.Read(s.buf[:min(len(s.buf), len(p))])
		for _, c := range s.buf[:m] {
			if s.space >= squeezeRun && !s.inStr && (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
				s.read, s.space, s.dropped = s.read+1, s.space+1, s.dropped+1 // the long run's rest: dropped
				continue
			}
			s.read++
			if s.keep(c) {
				p[n] = c
				n++
				s.out++
			}
			if s.err != nil {
				return n, s.err
			}
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// keep reports whether byte c goes to the decoder, updating the state.
func (s *squeezer) keep(c byte) bool {
	if s.inStr {
		s.token++
		switch {
		case s.escape:
			s.escape = false
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inStr, s.token = false, 0
		}
		return s.checkToken()
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		s.token = 0
		s.space++
		if s.space > squeezeRun {
			s.dropped++
			return false
		}
		return true
	}
	if s.space > squeezeRun {
		s.cuts = append(s.cuts, cut{at: s.out, dropped: s.dropped})
	}
	s.space = 0
	switch c {
	case '"':
		s.inStr, s.token = true, 1
	case '{', '}', '[', ']', ',', ':':
		s.token = 0
	default:
		s.token++
	}
	return s.checkToken()
}

func (s *squeezer) checkToken() bool {
	if s.token > MaxTokenBytes {
		s.err = &Error{Offset: s.read, Err: ErrBudget, Msg: fmt.Sprintf("a string or number longer than %d bytes", MaxTokenBytes)}
	}
	return true
}

// inputOffset maps an offset of the squeezed stream to the input's.
func (s *squeezer) inputOffset(off int64) int64 {
	k := sort.Search(len(s.cuts), func(k int) bool { return s.cuts[k].at > off })
	if k == 0 {
		return off
	}
	return off + s.cuts[k-1].dropped
}
