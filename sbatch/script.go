package sbatch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hpcsched/hpcsched/position"
)

// MaxScriptBytes bounds what ScriptArgs reads of a batch script before
// its first command: Slurm's own default limit on a whole batch script
// (SchedulerParameters max_script_size, 4 MB).
const MaxScriptBytes = 4 << 20

// ScriptArgs reads a batch script's #SBATCH directives as sbatch does:
// the lines that begin with "#SBATCH" and a blank, up to the first line
// that is neither blank nor a comment (after which sbatch reads no
// directive). Each directive's rest is split as Split splits a command
// line, a word that begins with '#' outside quotes ending it (a
// comment); nothing is expanded. It returns the arguments in order and,
// for each, its line (1-based), so that a caller can name where a refused
// option stands.
// The options go before the command line's: a later option overrides an
// earlier one, as the command line overrides the script in sbatch.
//
// Errors are *position.Error naming name and the line: a directive that
// does not split (an unterminated quote), a heterogeneous job's
// "#SBATCH hetjob" separator (not modelled), a line longer than
// MaxLineBytes, more than MaxArgs arguments, or more than MaxScriptBytes
// before the first command. A script without directives gives none.
func ScriptArgs(r io.Reader, name string) (args []string, lines []int, err error) {
	if r == nil {
		return nil, nil, errors.New("sbatch: ScriptArgs needs a reader, not nil")
	}
	sc := bufio.NewScanner(io.LimitReader(r, MaxScriptBytes+1))
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	read, line := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if read += len(text) + 1; read > MaxScriptBytes {
			return nil, nil, position.Errorf(position.Position{File: name, Line: line, Column: 1},
				"sbatch: more than MaxScriptBytes (%d) before the script's first command", MaxScriptBytes)
		}
		body := strings.TrimLeft(text, " \t\r")
		if body == "" || strings.HasPrefix(body, "#") && !isDirective(text) {
			continue // a blank line or a comment: sbatch reads on
		}
		if !isDirective(text) {
			break // the first command: no directive after it counts
		}
		words, err := directiveWords(text[len("#SBATCH"):])
		if err != nil {
			return nil, nil, position.Errorf(position.Position{File: name, Line: line, Column: 1}, "sbatch: %v", err)
		}
		if len(words) > 0 && words[0] == "hetjob" || len(words) > 0 && words[0] == "packjob" {
			return nil, nil, position.Errorf(position.Position{File: name, Line: line, Column: 1},
				"sbatch: %s: heterogeneous jobs are not modelled", words[0])
		}
		for _, w := range words {
			args, lines = append(args, w), append(lines, line)
		}
		if len(args) > MaxArgs {
			return nil, nil, position.Errorf(position.Position{File: name, Line: line, Column: 1}, "sbatch: more than MaxArgs (%d) arguments", MaxArgs)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line longer than MaxLineBytes (%d)", MaxLineBytes)
		}
		return nil, nil, position.Errorf(position.Position{File: name, Line: line + 1, Column: 1}, "sbatch: %v", err)
	}
	return args, lines, nil
}

// isDirective reports whether a script line is an #SBATCH directive: the
// word at its very start, followed by a blank or nothing.
func isDirective(text string) bool {
	rest, ok := strings.CutPrefix(text, "#SBATCH")
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r')
}

// directiveWords splits a directive's rest as Split does, up to its
// comment: a '#' that begins a word outside quotes.
func directiveWords(rest string) ([]string, error) {
	words, err := Split(cutComment(strings.TrimRight(rest, "\r")))
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, errors.New(e.Msg)
		}
		return nil, err
	}
	return words, nil
}

// cutComment is rest up to a '#' that begins a word outside quotes.
func cutComment(rest string) string {
	var quote byte
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == '#' && (i == 0 || rest[i-1] == ' ' || rest[i-1] == '\t'):
			return rest[:i]
		}
	}
	return rest
}
