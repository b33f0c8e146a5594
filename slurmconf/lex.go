package slurmconf

import (
	"bytes"
	"io"
	"slices"
	"strings"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
const bom = "\uFEFF"

// Pair is one key=value of a line, as written (the key keeps its case).
type Pair struct {
	Key   string
	Value string
	// Pos is where the key starts, ValuePos where the value's first byte is.
	Pos      Pos
	ValuePos Pos
}

// line is one logical line: its pairs, or an include directive.
type line struct {
	pos     Pos // the first byte of the line
	pairs   []Pair
	include string // file named by an Include line
	inclPos Pos
}

// is reports whether the pair's key is name, ignoring case.
func (p Pair) is(name string) bool { return strings.EqualFold(p.Key, name) }

func (p Pair) err(format string, args ...any) *Error {
	return errAt(p.ValuePos, format, args...)
}

// within is a pair for part of p's value, starting off bytes into it.
func (p Pair) within(value string, off int) Pair {
	q := p
	q.Value = value
	q.ValuePos.Column += off
	q.ValuePos.Offset += off
	return q
}

// readAll passes each line of r to each. r has no folder to resolve Include
// lines in, so they are appended to includes instead of being followed.
func readAll(b *budget, r io.Reader, includes *[]Pair, each func(line) error) error {
	return scanLines(newLineScanner(r, b, ""), func(l line) error {
		if l.include != "" {
			*includes = append(*includes, Pair{Key: "Include", Value: l.include, Pos: l.pos, ValuePos: l.inclPos})
			return nil
		}
		return each(l)
	})
}

// segment is where one physical line starts inside a logical one.
type segment struct {
	at  int // byte index in the joined line
	pos Pos // where that byte is in the file
}

// lineMap turns a byte index of a logical line, whose physical lines were
// joined at '\' continuations, into a file position.
type lineMap []segment

func (m lineMap) at(i int) Pos {
	k := len(m) - 1
	for k > 0 && m[k].at > i {
		k--
	}
	p := m[k].pos
	p.Column += i - m[k].at
	p.Offset += i - m[k].at
	return p
}

// scanLines joins the physical lines of s at '\' continuations and passes
// each logical line with key=value pairs or an include to each, as it is
// read: no more of the input than one logical line is held at a time.
// The pairs of a line are valid until each returns: a consumer keeping
// them copies them (a million-line file then allocates no pairs per line).
func scanLines(s *lineScanner, each func(line) error) error {
	var joined []byte
	var segs lineMap
	var pairs []Pair // reused from line to line: each must not keep l.pairs
	flush := func() error {
		l, err := lexLine(string(joined), segs, pairs[:0]) // the line's values share this one string
		joined, segs, pairs = joined[:0], segs[:0], l.pairs
		if err != nil || (len(l.pairs) == 0 && l.include == "") {
			return err
		}
		return each(l)
	}
	for {
		text, pos, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		segs = append(segs, segment{at: len(joined), pos: pos})
		continued := bytes.HasSuffix(text, []byte(`\`)) && !bytes.HasSuffix(text, []byte(`\\`))
		if continued {
			text = text[:len(text)-1]
		}
		if len(joined)+len(text) > MaxLineLength {
			return budgetAt(segs[0].pos, "line longer than %d bytes (MaxLineLength)", MaxLineLength)
		}
		joined = append(joined, text...)
		if !continued {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(segs) > 0 {
		return flush()
	}
	return nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// lexLine reads "key = value key2="quoted value" # comment", appending the
// pairs to dst.
func lexLine(s string, m lineMap, dst []Pair) (line, error) {
	l := line{pos: m.at(0), pairs: dst}
	i := skipBlanks(s, 0)
	if name, col, ok := includeDirective(s, i); ok {
		if name == "" {
			return l, errAt(m.at(col), "Include needs a file name")
		}
		l.include, l.inclPos = name, m.at(col)
		return l, nil
	}
	if n := strings.Count(s, "="); n > 0 {
		// at most one pair per '=': no regrowth on ordinary lines, and no
		// large allocation ahead of the pairs of a line of '=' signs
		l.pairs = slices.Grow(l.pairs, min(n, 64))
	}
	for i < len(s) {
		if s[i] == '#' {
			break
		}
		keyStart := i
		for i < len(s) && !isBlank(s[i]) && s[i] != '=' && s[i] != '#' {
			i++
		}
		key := s[keyStart:i]
		i = skipBlanks(s, i)
		if i >= len(s) || s[i] != '=' {
			return l, errAt(m.at(keyStart), "expected key=value, found %q", key)
		}
		if key == "" {
			return l, errAt(m.at(keyStart), "'=' without a key")
		}
		i = skipBlanks(s, i+1)
		valStart := i
		val, next, err := lexValue(s, i, m)
		if err != nil {
			return l, err
		}
		l.pairs = append(l.pairs, Pair{Key: key, Value: val, Pos: m.at(keyStart), ValuePos: m.at(valStart)})
		i = skipBlanks(s, next)
	}
	return l, nil
}

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

// lexValue reads a value: a double-quoted string, or bytes up to a blank
// or an unescaped '#'. "\#" stands for '#'.
func lexValue(s string, i int, m lineMap) (string, int, error) {
	if i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return "", 0, errAt(m.at(i), "unterminated quoted value")
		}
		return s[i+1 : i+1+end], i + end + 2, nil
	}
	start := i
	for i < len(s) && !isBlank(s[i]) && s[i] != '#' && s[i] != '\\' {
		i++
	}
	if i == len(s) || s[i] != '\\' {
		return s[start:i], i, nil // no escape: the value is part of the line
	}
	var b strings.Builder
	for i < len(s) && !isBlank(s[i]) {
		if s[i] == '#' {
			break
		}
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '#' {
			b.WriteString(s[start:i])
			start = i + 1
			i += 2
			continue
		}
		i++
	}
	b.WriteString(s[start:i])
	return b.String(), i, nil
}

// includeDirective recognises "Include name" (any case, no '=') and
// returns the name and the index where it starts.
func includeDirective(s string, i int) (name string, at int, ok bool) {
	const kw = "include"
	if len(s)-i < len(kw) || !strings.EqualFold(s[i:i+len(kw)], kw) {
		return "", 0, false
	}
	j := i + len(kw)
	if j < len(s) && !isBlank(s[j]) {
		return "", 0, false // a key such as IncludeFoo=...
	}
	j = skipBlanks(s, j)
	if j < len(s) && s[j] == '=' {
		return "", 0, false // "Include=..." is an ordinary key
	}
	rest := s[j:]
	if k := strings.IndexByte(rest, '#'); k >= 0 {
		rest = rest[:k]
	}
	return strings.Trim(strings.TrimSpace(rest), `"`), j, true
}
