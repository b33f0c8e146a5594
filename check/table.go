package check

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/hpcsched/hpcsched/position"
	"io"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Budgets of a table.
const (
	MaxTableBytes = 16 << 20
	MaxCases      = 100000
)

// Case is one line of a table.
type Case struct {
	Line                          int
	Conf, Load, Request, Expected string
}

// TableError is a malformed table line.
type TableError struct {
	File         string
	Line, Column int
	Msg          string
}

// Position is where the problem is (for position.Of).
func (e *TableError) Position() position.Position {
	return position.Position{File: e.File, Line: e.Line, Column: e.Column}
}

func (e *TableError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// ReadTable reads the cases of a table; name is used in errors. A byte
// order mark before the first line is dropped. A nil r is an error, as
// NewSite's nil configuration is.
func ReadTable(r io.Reader, name string) ([]Case, error) {
	if r == nil {
		return nil, errors.New("check: ReadTable: nil io.Reader")
	}
	sc := bufio.NewScanner(io.LimitReader(r, MaxTableBytes+1))
	sc.Buffer(make([]byte, 0, 64<<10), MaxTableBytes+1)
	var cases []Case
	read, line := 0, 1
	for ; sc.Scan(); line++ {
		text := sc.Text()
		read += len(text) + 1
		if line == 1 { // an editor's byte order mark is not part of the first field
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if read > MaxTableBytes {
			return nil, &TableError{name, line, 1, "table larger than MaxTableBytes"}
		}
		if t := strings.TrimSpace(text); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		c, err := parseCase(text, name, line)
		if err != nil {
			return nil, err
		}
		if len(cases) == MaxCases {
			return nil, &TableError{name, line, 1, "more than MaxCases cases"}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &TableError{name, line, 1, "line longer than MaxTableBytes"}
		}
		return nil, &TableError{name, line, 1, err.Error()}
	}
	return cases, nil
}

func parseCase(text, name string, line int) (Case, error) {
	f := strings.Split(text, "\t")
	if len(f) != 4 {
		col := len(text) + 1
		if len(f) > 4 {
			col = len(strings.Join(f[:4], "\t")) + 1
		}
		return Case{}, &TableError{name, line, col, fmt.Sprintf("%d tab-separated fields, want 4 (conf, load, request, expected)", len(f))}
	}
	c := Case{Line: line, Conf: f[0], Load: f[1], Request: f[2], Expected: f[3]}
	col := len(f[0]) + len(f[1]) + len(f[2]) + 4
	if err := checkExpected(c.Expected); err != nil {
		return Case{}, &TableError{name, line, col, err.Error()}
	}
	if c.Conf == "" {
		return Case{}, &TableError{name, line, 1, "empty conf field"}
	}
	return c, nil
}

func checkExpected(e string) error {
	switch {
	case e == "REJECT":
		return nil
	case strings.HasPrefix(e, "REJECT:"):
		class := strings.TrimPrefix(e, "REJECT:")
		for _, ok := range []string{"node_config", "part_config", "busy", "held", "invalid"} {
			if class == ok {
				return nil
			}
		}
		return fmt.Errorf("unknown rejection class %q (node_config, part_config, busy, held, invalid)", class)
	}
	if _, err := hostlist.Expand(e); err != nil || e == "" {
		return fmt.Errorf("expected %q is neither a hostlist nor REJECT[:class]", e)
	}
	return nil
}

// applyLoad puts a case's load on the site.
func (s *Site) applyLoad(load string) error {
	if load == "-" || strings.TrimSpace(load) == "" {
		return nil
	}
	for _, item := range strings.Fields(load) {
		var err error
		switch {
		case strings.HasPrefix(item, "down="):
			err = s.SetState(strings.TrimPrefix(item, "down="), selectnodes.NodeDown)
		case strings.HasPrefix(item, "drain="):
			err = s.SetState(strings.TrimPrefix(item, "drain="), selectnodes.NodeDrain)
		default:
			err = s.Run(item)
		}
		if err != nil {
			return fmt.Errorf("load %q: %w", item, err)
		}
	}
	return nil
}
