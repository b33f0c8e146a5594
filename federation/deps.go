package federation

import (
	"errors"
	"fmt"
	"github.com/hpcsched/hpcsched/position"
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
// afterany, afterok or afternotok, and "singleton"; a bare ID is afterany.
// "" is no dependency. The grammar is queue.ParseDependency's (one parser
// for the module); after:id+minutes is refused, as the grid cannot time a
// start on another cluster's clock.
func ParseDependency(spec string) (*Dependency, error) {
	if len(spec) > MaxDependencyBytes {
		return nil, &DependencyError{Spec: spec, Pos: MaxDependencyBytes, Msg: fmt.Sprintf("longer than %d bytes", MaxDependencyBytes)}
	}
	qd, err := queue.ParseDependency(spec)
	if err != nil {
		var qe *queue.DependencyError
		if errors.As(err, &qe) {
			return nil, &DependencyError{Spec: spec, Pos: qe.Pos.Offset, Msg: qe.Msg}
		}
		return nil, &DependencyError{Spec: spec, Msg: err.Error()}
	}
	d := &Dependency{Any: qd.Any()}
	for _, t := range qd.Terms() {
		if t.Delay > 0 {
			return nil, &DependencyError{Spec: spec, Pos: strings.Index(spec, "+"), Msg: "after:ID+minutes is not supported across clusters"}
		}
		d.Terms = append(d.Terms, DepTerm{Kind: depKindOf(t.Kind), Job: t.Job})
	}
	return d, nil
}

// depKindOf maps queue's kind names to DepKind.
func depKindOf(name string) DepKind {
	switch name {
	case "after":
		return After
	case "afterany":
		return AfterAny
	case "afterok":
		return AfterOK
	case "afternotok":
		return AfterNotOK
	}
	return Singleton
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
