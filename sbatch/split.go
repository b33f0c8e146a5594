package sbatch

import "strings"

// Split breaks a command line into arguments as a POSIX shell would for
// plain words: on blanks, with '...' and "..." quoting (and \ escaping
// inside double quotes and outside quotes). It expands nothing: no globs,
// variables or substitutions.
func Split(line string) ([]string, error) {
	if len(line) > MaxLineBytes {
		return nil, &Error{Arg: -1, Offset: MaxLineBytes, Msg: "line longer than MaxLineBytes"}
	}
	var out []string
	var cur strings.Builder
	in := false // inside a word
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, &Error{Arg: -1, Offset: i, Msg: "unterminated ' quote"}
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			in = true
		case c == '"':
			j, err := doubleQuoted(line, i, &cur)
			if err != nil {
				return nil, err
			}
			i, in = j, true
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
		if len(out) > MaxArgs {
			return nil, &Error{Arg: -1, Offset: i, Msg: "more than MaxArgs arguments"}
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// doubleQuoted copies the "..." starting at line[i] into cur and returns
// the index of the closing quote.
func doubleQuoted(line string, i int, cur *strings.Builder) (int, error) {
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '"':
			return j, nil
		case '\\':
			if j+1 < len(line) && strings.IndexByte(`"\$`+"`", line[j+1]) >= 0 {
				j++
			}
		}
		cur.WriteByte(line[j])
	}
	return 0, &Error{Arg: -1, Offset: i, Msg: `unterminated " quote`}
}
