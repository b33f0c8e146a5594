package federation

import (
	"fmt"
	"github.com/hpcsched/hpcsched/position"
	"strconv"
	"strings"

	"github.com/hpcsched/hpcsched/queue"
)

// MaxDependencyBytes bounds a dependency string; longer ones are rejected
// before anything is parsed or allocated.
const MaxDependencyBytes = 4096

// DepKind is a kind of cross-cluster dependency (sbatch --dependency).
type DepKind uint8

const (
	// After: the target started (or ended without starting).
	After DepKind = iota + 1
	// AfterAny: the target ended, however.
	AfterAny
	// AfterOK: the target completed successfully.
	AfterOK
	// AfterNotOK: the target ended unsuccessfully (failed, timed out,
	// cancelled, node failure).
	AfterNotOK
	// Singleton: no earlier grid job of the same user and name is still
	// pending or running.
	Singleton
)

var depNames = map[string]DepKind{"after": After, "afterany": AfterAny, "afterok": AfterOK,
	"afternotok": AfterNotOK, "singleton": Singleton}

// DepTerm is one condition: Kind on Job (Job is 0 for Singleton).
type DepTerm struct {
	Kind DepKind
	Job  queue.JobID
}

// Dependency is a parsed dependency: all terms must hold, or with Any,
// one of them.
type Dependency struct {
	Terms []DepTerm
	Any   bool
}

// DependencyError is a dependency that does not parse, with the byte
// offset of the problem.
type DependencyError struct {
	Spec string
	Pos  int
	Msg  string
}

func (e *DependencyError) Error() string {
	return fmt.Sprintf("federation: dependency %q at offset %d: %s", e.Spec, e.Pos, e.Msg)
}

// Position is the problem's place in Spec (for position.Of).
func (e *DependencyError) Position() position.Position { return position.At(e.Spec, e.Pos) }

// Is makes errors.Is(err, ErrInvalidSpec) true.
func (e *DependencyError) Is(target error) bool { return target == ErrInvalidSpec }

// ParseDependency parses "kind:id[:id...][,kind:id...]" (all must hold)
// or the same joined by '?' (any may hold), where kind is after,
// afterany, afterok or afternotok, and "singleton". "" is no dependency.
func ParseDependency(spec string) (*Dependency, error) {
	bad := func(pos int, format string, args ...any) error {
		return &DependencyError{Spec: spec, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	if len(spec) > MaxDependencyBytes {
		return nil, bad(MaxDependencyBytes, "longer than %d bytes", MaxDependencyBytes)
	}
	d := &Dependency{}
	if spec == "" {
		return d, nil
	}
	sep := ","
	if strings.Contains(spec, "?") {
		if strings.Contains(spec, ",") {
			return nil, bad(strings.Index(spec, ","), "cannot mix ',' (all) and '?' (any)")
		}
		sep, d.Any = "?", true
	}
	off := 0
	for _, item := range strings.Split(spec, sep) {
		if err := d.parseItem(item, off, bad); err != nil {
			return nil, err
		}
		off += len(item) + 1
	}
	return d, nil
}

func (d *Dependency) parseItem(item string, off int, bad func(int, string, ...any) error) error {
	fields := strings.Split(item, ":")
	kind, ok := depNames[strings.ToLower(fields[0])]
	if !ok {
		return bad(off, "unknown dependency type %q", fields[0])
	}
	if kind == Singleton {
		if len(fields) > 1 {
			return bad(off+len(fields[0]), "singleton takes no job IDs")
		}
		d.Terms = append(d.Terms, DepTerm{Kind: Singleton})
		return nil
	}
	if len(fields) < 2 {
		return bad(off+len(item), "%s needs at least one job ID", fields[0])
	}
	pos := off + len(fields[0]) + 1
	for _, f := range fields[1:] {
		id, err := strconv.ParseUint(f, 10, 64)
		if err != nil || id == 0 {
			return bad(pos, "bad job ID %q", f)
		}
		d.Terms = append(d.Terms, DepTerm{Kind: kind, Job: queue.JobID(id)})
		pos += len(f) + 1
	}
	return nil
}

// depState is where a dependency stands.
type depState uint8

const (
	depMet depState = iota
	depWaiting
	depNever
)

// termState says where one term stands, given the target's grid record
// (nil for singleton).
func termState(t DepTerm, target *record) depState {
	st := target.state
	ended := st.Terminal()
	switch t.Kind {
	case After:
		if ended || st == queue.Running || st == queue.Suspended {
			return depMet
		}
	case AfterAny:
		if ended {
			return depMet
		}
	case AfterOK:
		if st == queue.Complete {
			return depMet
		}
		if ended {
			return depNever
		}
	case AfterNotOK:
		if ended && st != queue.Complete {
			return depMet
		}
		if st == queue.Complete {
			return depNever
		}
	}
	return depWaiting
}
