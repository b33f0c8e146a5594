package queue

import (
	"fmt"
	"github.com/hpcsched/hpcsched/position"
	"strconv"
	"strings"
	"time"
)

type depKind uint8

const (
	depAfter depKind = iota
	depAfterAny
	depAfterOK
	depAfterNotOK
	depSingleton
)

func depKindOf(name string) (depKind, bool) {
	switch name {
	case "after":
		return depAfter, true
	case "afterany":
		return depAfterAny, true
	case "afterok":
		return depAfterOK, true
	case "afternotok":
		return depAfterNotOK, true
	case "singleton":
		return depSingleton, true
	}
	return 0, false
}

// MaxDependencyBytes bounds the length of a --dependency value.
const MaxDependencyBytes = 64 << 10

// maxDelayMinutes bounds after:id+minutes, so the delay is a valid
// time.Duration far from overflow.
const maxDelayMinutes = uint64(MaxTimeLimit / time.Minute)

type depTerm struct {
	kind  depKind
	id    JobID
	delay time.Duration // after:id+minutes
}

// Dependency is a parsed --dependency value: terms joined by ',' (all must
// hold) or '?' (any may).
type Dependency struct {
	any   bool
	terms []depTerm
}

// DependencyError is a malformed dependency; Pos is where in Spec (its
// Offset is the byte offset).
type DependencyError struct {
	Spec string
	Pos  position.Position
	Msg  string
}

func (e *DependencyError) Error() string {
	return fmt.Sprintf("dependency %q: offset %d: %s", e.Spec, e.Pos.Offset, e.Msg)
}

// Position is where the problem is (for position.Of).
func (e *DependencyError) Position() position.Position { return e.Pos }

// ParseDependency reads "afterok:12:13,afterany:14", "after:12+30"
// (30 minutes after job 12 started), "singleton", a bare job ID (afterany),
// or items joined by '?' (any). Mixing ',' and '?' is an error.
func ParseDependency(spec string) (*Dependency, error) {
	if len(spec) > MaxDependencyBytes {
		return nil, &DependencyError{Spec: spec[:64] + "…", Pos: position.Position{Offset: MaxDependencyBytes}, Msg: fmt.Sprintf("longer than MaxDependencyBytes (%d)", MaxDependencyBytes)}
	}
	d := &Dependency{}
	if strings.TrimSpace(spec) == "" {
		return d, nil
	}
	bad := func(pos int, format string, args ...any) error {
		return &DependencyError{Spec: spec, Pos: position.At(spec, pos), Msg: fmt.Sprintf(format, args...)}
	}
	sep := byte(0)
	for i := 0; i < len(spec); {
		end := strings.IndexAny(spec[i:], ",?")
		if end < 0 {
			end = len(spec)
		} else {
			end += i
			if sep != 0 && spec[end] != sep {
				return nil, bad(end, "',' (all) and '?' (any) cannot be mixed")
			}
			sep = spec[end]
		}
		item := spec[i:end]
		if item == "" {
			return nil, bad(i, "empty item")
		}
		if err := d.parseItem(item, i, bad); err != nil {
			return nil, err
		}
		if end < len(spec) && end == len(spec)-1 {
			return nil, bad(end+1, "empty item")
		}
		i = end + 1
	}
	d.any = sep == '?'
	return d, nil
}

func (d *Dependency) parseItem(item string, off int, bad func(int, string, ...any) error) error {
	fields := strings.Split(item, ":")
	kindName := strings.ToLower(fields[0])
	if id, err := strconv.ParseUint(item, 10, 64); err == nil && len(fields) == 1 {
		if id == 0 {
			return bad(off, "0 is not a job ID")
		}
		d.terms = append(d.terms, depTerm{kind: depAfterAny, id: JobID(id)})
		return nil
	}
	kind, ok := depKindOf(kindName)
	if !ok {
		return bad(off, "unknown dependency type %q", fields[0])
	}
	if kind == depSingleton {
		if len(fields) > 1 {
			return bad(off+len(fields[0]), "singleton takes no job IDs")
		}
		d.terms = append(d.terms, depTerm{kind: depSingleton})
		return nil
	}
	if len(fields) < 2 {
		return bad(off+len(item), "%s needs at least one job ID", kindName)
	}
	pos := off + len(fields[0]) + 1
	for _, f := range fields[1:] {
		idText, delayText, hasDelay := strings.Cut(f, "+")
		id, err := strconv.ParseUint(idText, 10, 64)
		if err != nil || id == 0 {
			return bad(pos, "%q is not a job ID", idText)
		}
		t := depTerm{kind: kind, id: JobID(id)}
		if hasDelay {
			if kind != depAfter {
				return bad(pos+len(idText), "only after takes +minutes")
			}
			m, err := strconv.ParseUint(delayText, 10, 32)
			if err != nil {
				return bad(pos+len(idText)+1, "%q is not a number of minutes", delayText)
			}
			if m > maxDelayMinutes {
				return bad(pos+len(idText)+1, "%d minutes is more than the limit of %d (MaxTimeLimit)", m, maxDelayMinutes)
			}
			t.delay = time.Duration(m) * time.Minute
		}
		d.terms = append(d.terms, t)
		pos += len(f) + 1
	}
	return nil
}

// DependencyTerm is one condition of a parsed dependency, for callers
// that resolve dependencies themselves (a grid across clusters).
type DependencyTerm struct {
	// Kind is "after", "afterany", "afterok", "afternotok" or "singleton".
	Kind string
	// Job is the target (0 for singleton).
	Job JobID
	// Delay is after:job+minutes' wait after the target's start.
	Delay time.Duration
}

// Terms are the dependency's conditions in the order written.
func (d *Dependency) Terms() []DependencyTerm {
	if d == nil {
		return nil
	}
	out := make([]DependencyTerm, len(d.terms))
	for i, t := range d.terms {
		out[i] = DependencyTerm{Kind: depKindName(t.kind), Job: t.id, Delay: t.delay}
	}
	return out
}

// Any reports whether one term suffices ('?') rather than all (',').
func (d *Dependency) Any() bool { return d != nil && d.any }

func depKindName(k depKind) string {
	return [...]string{"after", "afterany", "afterok", "afternotok", "singleton"}[k]
}

// namesJobs reports whether the dependency names a job (any term but
// singleton), without listing them.
func (d *Dependency) namesJobs() bool {
	if d == nil {
		return false
	}
	for _, t := range d.terms {
		if t.kind != depSingleton {
			return true
		}
	}
	return false
}

// targets lists the job IDs the dependency names.
func (d *Dependency) targets() []JobID {
	if d == nil {
		return nil
	}
	var ids []JobID
	for _, t := range d.terms {
		if t.kind != depSingleton {
			ids = append(ids, t.id)
		}
	}
	return ids
}

func (d *Dependency) empty() bool { return d == nil || len(d.terms) == 0 }

// depState is what the dependency says at a moment.
type depState uint8

const (
	depWaiting depState = iota
	depMet
	depNever
)

// evaluate looks the targets up through s.
func (d *Dependency) evaluate(s *Scheduler, self *job, now time.Time) depState {
	if d.empty() {
		return depMet
	}
	met, never := 0, 0
	for _, t := range d.terms {
		switch s.termState(t, self, now) {
		case depMet:
			met++
		case depNever:
			never++
		}
	}
	n := len(d.terms)
	switch {
	case d.any && met > 0, !d.any && met == n:
		return depMet
	case d.any && never == n, !d.any && never > 0:
		return depNever
	}
	return depWaiting
}

func (s *Scheduler) termState(t depTerm, self *job, now time.Time) depState {
	if t.kind == depSingleton {
		for _, o := range s.sameUserName(self) {
			if o != self && (o.State == Running || o.State == Suspended) {
				return depWaiting
			}
		}
		return depMet
	}
	if o, ok := s.jobs[t.id]; ok {
		return t.against(o.Start, o.State, now)
	}
	if g, ok := s.gone[t.id]; ok {
		return t.against(g.startTime(), g.state, now)
	}
	return depNever
}

// against is the term's state given its target's start and state (a live
// job's, or a forgotten one's tombstone).
func (t depTerm) against(start time.Time, state State, now time.Time) depState {
	switch t.kind {
	case depAfter:
		switch {
		case state == Pending:
			return depWaiting
		case !start.IsZero() && now.Before(start.Add(t.delay)):
			return depWaiting
		}
		return depMet
	case depAfterAny:
		if state.Terminal() {
			return depMet
		}
	case depAfterOK:
		if state == Complete {
			return depMet
		}
		if state.Terminal() {
			return depNever
		}
	case depAfterNotOK:
		if state.Terminal() && state != Complete {
			return depMet
		}
		if state == Complete {
			return depNever
		}
	}
	return depWaiting
}
