package selectnodes

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bits-and-blooms/bitset"
)

// The error classes of the Novotný thesis §3.1.6, for errors.Is. Every error
// SelectNodes returns is an *Error wrapping one of them.
var (
	// ErrNodeConfig: the job can never run on this node configuration.
	ErrNodeConfig = errors.New("requested node configuration is not available")
	// ErrPartConfig: partition limits or the state of nodes (down,
	// drained) prevent the job from running now.
	ErrPartConfig = errors.New("requested partition configuration not available now")
	// ErrBusy: the job could run, but not until other jobs end.
	ErrBusy = errors.New("requested nodes are busy")
	// ErrHeld: the job has priority 0.
	ErrHeld = errors.New("job is held")
	// ErrInvalidRequest: the request names an unknown partition or node,
	// or holds impossible values.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrNilArgument: New or FromConfig was given a nil configuration or
	// a nil Option.
	ErrNilArgument = errors.New("selectnodes: nil argument")
)

// Error is a selection failure: its class, a one-line reason and the
// explanation of how the pipeline got there. Cause, when set, is a typed
// error with the details (such as a *BitmapLengthError).
type Error struct {
	Class       error
	Reason      string
	Explanation *Explanation
	Cause       error
}

func (e *Error) Error() string { return e.Class.Error() + ": " + e.Reason }

// Unwrap lets errors.Is match the class and errors.As find the cause.
func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Class}
	}
	return []error{e.Class, e.Cause}
}

// BitmapLengthError is a node bitmap given to the package (such as
// Request.ExcludeNodes) whose length is not the cluster's node count: its
// bits cannot be trusted to name the cluster's nodes.
type BitmapLengthError struct {
	Field     string
	Len, Want uint
}

func (e *BitmapLengthError) Error() string {
	return fmt.Sprintf("selectnodes: %s has %d bits, the cluster has %d nodes", e.Field, e.Len, e.Want)
}

// checkBitmap length-checks a node bitmap entering the API.
func checkBitmap(field string, b *bitset.BitSet, n int) *Error {
	if b == nil || b.Len() == uint(n) {
		return nil
	}
	cause := &BitmapLengthError{Field: field, Len: b.Len(), Want: uint(n)}
	return &Error{Class: ErrInvalidRequest, Reason: cause.Error(), Cause: cause}
}

func newError(class error, format string, args ...any) *Error {
	return &Error{Class: class, Reason: fmt.Sprintf(format, args...)}
}

// rank orders the classes for the Novotný thesis §3.2.4: once a failure is busy it
// stays busy, a partition failure can rise to busy but not fall to a node
// failure.
func rank(class error) int {
	switch class {
	case ErrBusy:
		return 3
	case ErrPartConfig:
		return 2
	case ErrNodeConfig:
		return 1
	}
	return 0
}

// ClassName is the short name of an error class, as the CLI prints it:
// "node_config", "part_config", "busy", "held", "invalid" or "".
func ClassName(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNodeConfig):
		return "node_config"
	case errors.Is(err, ErrPartConfig):
		return "part_config"
	case errors.Is(err, ErrBusy):
		return "busy"
	case errors.Is(err, ErrHeld):
		return "held"
	case errors.Is(err, ErrInvalidRequest):
		return "invalid"
	}
	return "error"
}

// Explanation says, per node set and per constraint, what the pipeline did
// with a request.
type Explanation struct {
	Partition string
	Mode      Mode
	Counts    Counts
	Sets      []SetReport
	// Steps are the pipeline's decisions in order, readable as they stand.
	Steps     []string
	Class     error // nil when a placement was found
	Reason    string
	Placement *Placement
	// c is the cluster that made the explanation, for merging node sets
	// by index (nil for one built by hand).
	c *Cluster
}

// SetReport is one node set (config record) seen by a request.
type SetReport struct {
	Nodes    string // the record's nodes, as a hostlist
	Weight   int64
	Features []string // the record's features, as configured (a copy, the caller's)
	Total    int      // nodes in the record
	// Removed counts the nodes each filter removed, in pipeline order:
	// "partition", "excluded", "features", "cpus", "memory", "tmpdisk",
	// "gres".
	Removed    []Removal
	Candidates int // left after the per-node filters
	Available  int // of those, up and not drained
	Usable     int // of those, free enough under the current load (not for TestOnly)
	record     int
}

// Removal is how many nodes one filter removed from a set.
type Removal struct {
	Filter string
	Count  int
	Why    string // e.g. "RealMemory 64000 < 128000"
}

// String renders the explanation for people.
func (e *Explanation) String() string {
	var b strings.Builder
	e.WriteTo(&b)
	return b.String()
}

// WriteTo writes the explanation as String renders it, without building
// it in memory first (the node sets of a huge cluster can be megabytes of
// hostlist). It returns the bytes written and the first write error. A
// nil Explanation writes "no explanation".
func (e *Explanation) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	if e == nil { // no explanation was asked for
		io.WriteString(cw, "no explanation\n")
		return cw.n, cw.err
	}
	fmt.Fprintf(cw, "partition %s, mode %s, %s\n", e.Partition, e.Mode, e.Counts)
	for _, s := range e.Groups() {
		fmt.Fprintf(cw, "  node set %s (weight %d%s, %d nodes): %d candidates, %d available, %d usable now",
			s.Nodes, s.Weight, featureList(s.Features), s.Total, s.Candidates, s.Available, s.Usable)
		for _, r := range s.Removed {
			fmt.Fprintf(cw, "; %s removed %d", r.Filter, r.Count)
			if r.Why != "" {
				fmt.Fprintf(cw, " (%s)", r.Why)
			}
		}
		io.WriteString(cw, "\n")
	}
	for _, s := range e.Steps {
		fmt.Fprintf(cw, "  %s\n", s)
	}
	if e.Class != nil {
		fmt.Fprintf(cw, "result: %s (%s): %s\n", ClassName(e.Class), e.Class, e.Reason)
	} else if e.Placement != nil {
		fmt.Fprintf(cw, "result: runnable on %s\n", e.Placement.Hostlist())
	}
	return cw.n, cw.err
}

// countingWriter counts what reaches w and keeps the first error, after
// which it writes nothing more.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
