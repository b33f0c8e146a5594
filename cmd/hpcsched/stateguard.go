package main

import (
	"fmt"
	"io"
)

// maxLeadingSpace is how much white space may come before a snapshot's
// opening '{'.
const maxLeadingSpace = 1 << 20

// jsonGuard passes a JSON document through, failing at the first byte no
// JSON text can hold (a control byte other than tab, LF and CR: the NULs
// of /dev/zero, binary data) and when the text does not open with '{'
// within maxLeadingSpace bytes. queue.Restore checks its MaxStateBytes
// budget only after reading up to it; with the guard a file that is not
// a snapshot ends at once, its memory bounded by what was read.
type jsonGuard struct {
	r       io.Reader
	off     int64
	started bool
}

func (g *jsonGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for i, b := range p[:n] {
		at := g.off + int64(i)
		switch {
		case b < 0x20 && b != '\t' && b != '\n' && b != '\r':
			return i, fmt.Errorf("byte %d is %#02x, which no JSON text holds: not a snapshot", at, b)
		case g.started:
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			if at >= maxLeadingSpace {
				return i, fmt.Errorf("%d bytes of white space and no '{': not a snapshot", at)
			}
		case b != '{':
			return i, fmt.Errorf("byte %d is %q, not the '{' a snapshot opens with: not a snapshot", at, b)
		default:
			g.started = true
		}
	}
	g.off += int64(n)
	return n, err
}
