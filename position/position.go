package position

import (
	"errors"
	"strconv"
	"strings"
)

// Position is a place in a text. Line and Column are 1-based and 0 when
// unknown; Column counts bytes, as go/token does. Offset is the 0-based byte
// offset from the start of the text; it is meaningful when Line > 0.
type Position struct {
	File   string
	Line   int
	Column int
	Offset int
}

// IsValid reports whether the position names a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String is "file:line:column", leaving out what is unknown: "file:line",
// "line:column", "file", or "-" when nothing is known.
func (p Position) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.IsValid() {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
		if p.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Column))
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// At is the position of byte offset off in src, a text without a file
// name: its line and column are counted from src. An offset outside src is
// clamped to it.
func At(src string, off int) Position {
	off = max(0, min(off, len(src)))
	line := 1 + strings.Count(src[:off], "\n")
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	return Position{Line: line, Column: off - lineStart + 1, Offset: off}
}

// Resolve returns where inner, a position inside a text that starts at
// base (a value inside a configuration line, say), lies in base's file.
// An invalid inner gives base itself.
func (base Position) Resolve(inner Position) Position {
	if !inner.IsValid() {
		return base
	}
	out := Position{File: base.File, Line: base.Line + inner.Line - 1, Column: inner.Column, Offset: base.Offset + inner.Offset}
	if inner.Line == 1 && base.Column > 0 {
		out.Column = base.Column + inner.Column - 1
	}
	if inner.File != "" && base.File == "" {
		out.File = inner.File
	}
	return out
}

// Compare orders positions by file, then line, then column, then offset.
func Compare(a, b Position) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	for _, d := range [...]int{a.Line - b.Line, a.Column - b.Column, a.Offset - b.Offset} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Positioned is implemented by every error of the module that knows where
// its problem is.
type Positioned interface {
	error
	Position() Position
}

// Of returns the position of the first error in err's chain that has one.
func Of(err error) (Position, bool) {
	var p Positioned
	if errors.As(err, &p) {
		return p.Position(), true
	}
	return Position{}, false
}
