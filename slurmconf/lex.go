package slurmconf

import (
	"bufio"
	"io"
	"strings"
)

// MaxLineLength is the longest logical line (continuations joined) read.
const MaxLineLength = 1 << 20

// Pair is one key=value of a line, as written (the key keeps its case).
type Pair struct {
	Key   string
	Value string
	Pos   Pos
	Col   int // 1-based column of the key
	// ValueCol is the 1-based column of the value's first byte.
	ValueCol int
}

// line is one logical line: its pairs, or an include directive.
type line struct {
	pos     Pos
	pairs   []Pair
	include string // file named by an Include line
	inclCol int
}

// is reports whether the pair's key is name, ignoring case.
func (p Pair) is(name string) bool { return strings.EqualFold(p.Key, name) }

func (p Pair) err(format string, args ...any) *Error {
	return errAt(p.Pos, p.ValueCol, format, args...)
}

// readAll passes each line of r to each. r has no folder to resolve Include
// lines in, so they are appended to includes instead of being followed.
func readAll(r io.Reader, includes *[]Pair, each func(line) error) error {
	lines, err := readLines(r, "")
	if err != nil {
		return err
	}
	for _, l := range lines {
		if l.include != "" {
			*includes = append(*includes, Pair{Key: "Include", Value: l.include, Pos: l.pos, Col: 1, ValueCol: l.inclCol})
			continue
		}
		if err := each(l); err != nil {
			return err
		}
	}
	return nil
}

// readLines splits r into logical lines of key=value pairs.
func readLines(r io.Reader, file string) ([]line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLineLength)
	var out []line
	var pending strings.Builder
	startLine, n := 0, 0
	for sc.Scan() {
		n++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if pending.Len() == 0 {
			startLine = n
		}
		if strings.HasSuffix(text, "\\") && !strings.HasSuffix(text, "\\\\") {
			pending.WriteString(text[:len(text)-1])
			if pending.Len() > MaxLineLength {
				return nil, errAt(Pos{file, startLine}, 0, "line longer than %d bytes", MaxLineLength)
			}
			continue
		}
		pending.WriteString(text)
		l, err := lexLine(pending.String(), Pos{file, startLine})
		pending.Reset()
		if err != nil {
			return nil, err
		}
		if len(l.pairs) > 0 || l.include != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, errAt(Pos{file, n + 1}, 0, "line longer than %d bytes", MaxLineLength)
		}
		return nil, errAt(Pos{file, n + 1}, 0, "read: %v", err)
	}
	if pending.Len() > 0 {
		l, err := lexLine(pending.String(), Pos{file, startLine})
		if err != nil {
			return nil, err
		}
		if len(l.pairs) > 0 || l.include != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// lexLine reads "key = value key2="quoted value" # comment".
func lexLine(s string, pos Pos) (line, error) {
	l := line{pos: pos}
	i := skipBlanks(s, 0)
	if name, col, ok := includeDirective(s, i); ok {
		if name == "" {
			return l, errAt(pos, col, "Include needs a file name")
		}
		l.include, l.inclCol = name, col
		return l, nil
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
			return l, errAt(pos, keyStart+1, "expected key=value, found %q", key)
		}
		if key == "" {
			return l, errAt(pos, keyStart+1, "'=' without a key")
		}
		i = skipBlanks(s, i+1)
		valStart := i
		val, next, err := lexValue(s, i, pos)
		if err != nil {
			return l, err
		}
		l.pairs = append(l.pairs, Pair{Key: key, Value: val, Pos: pos, Col: keyStart + 1, ValueCol: valStart + 1})
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
func lexValue(s string, i int, pos Pos) (string, int, error) {
	if i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return "", 0, errAt(pos, i+1, "unterminated quoted value")
		}
		return s[i+1 : i+1+end], i + end + 2, nil
	}
	var b strings.Builder
	start := i
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

// includeDirective recognises "Include name" (any case, no '=').
func includeDirective(s string, i int) (name string, col int, ok bool) {
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
	return strings.Trim(strings.TrimSpace(rest), `"`), j + 1, true
}
