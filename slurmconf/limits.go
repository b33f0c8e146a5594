package slurmconf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/position"
)

// Default budgets; see Limits.
const (
	// MaxLineLength is the longest logical line (continuations joined) read.
	MaxLineLength = 1 << 20
	// MaxIncludeDepth is how deeply Include lines may nest.
	MaxIncludeDepth = 16
	// DefaultMaxNodes is the default Limits.Nodes: ten times the largest
	// machines of today.
	DefaultMaxNodes = 1 << 20
	// DefaultMaxHostNames is the default Limits.HostNames.
	DefaultMaxHostNames = 1 << 22
	// DefaultMaxHostBytes is the default Limits.HostBytes (128 MiB).
	DefaultMaxHostBytes = 128 << 20
	// DefaultMaxFiles is the default Limits.Files.
	DefaultMaxFiles = 256
	// DefaultMaxInputBytes is the default Limits.InputBytes (64 MiB).
	DefaultMaxInputBytes = 64 << 20
	// DefaultMaxInherited is the default Limits.Inherited.
	DefaultMaxInherited = 1 << 20
	// DefaultMaxPairs is the default Limits.Pairs: about 110 MB of pairs,
	// room for an unmodelled key on every line of a million-node file.
	DefaultMaxPairs = 1 << 20
	// DefaultMaxRecords is the default Limits.Records: sites have hundreds
	// of partitions at most, and gres.conf lines for tens of thousands of
	// nodes fit.
	DefaultMaxRecords = 1 << 16
)

// Limits bounds the work and memory of one parse. Each is checked before
// the memory it protects is allocated; going beyond one is an *Error that
// wraps ErrBudget, names the limit and gives the line. A field that is 0
// or less takes its default.
type Limits struct {
	// Nodes is the most node names NodeName lines may define in total.
	Nodes int
	// HostNames is the most names all hostlist values together (NodeName,
	// NodeAddr, partition Nodes, switch members, gres.conf File, ...) may
	// expand to, and HostBytes the most bytes those names may take.
	HostNames int
	HostBytes int
	// Files is the most files one parse reads, the first one and every
	// Include counted (a file included twice counts twice), and InputBytes
	// the most bytes it reads from them, or from an io.Reader.
	Files      int
	InputBytes int64
	// Inherited is the most key=value pairs NodeName=DEFAULT and
	// PartitionName=DEFAULT lines may hand down, as Extra pairs, to the
	// lines after them, counted once per receiving line.
	Inherited int
	// Pairs is the most key=value pairs a parse keeps as they were
	// written (Params, Extra, Record pairs, DEFAULT templates), and Records
	// the most records other than nodes (partition, FrontendName,
	// DownNodes and NodeSet lines, gres.conf lines, switch and block
	// lines). A kept pair or a record costs far more memory than its text,
	// so the input budget alone would let a 64 MiB file of "A=1" lines
	// take gigabytes.
	Pairs   int
	Records int
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Nodes, DefaultMaxNodes)
	def(&l.HostNames, DefaultMaxHostNames)
	def(&l.HostBytes, DefaultMaxHostBytes)
	def(&l.Files, DefaultMaxFiles)
	def(&l.Inherited, DefaultMaxInherited)
	def(&l.Pairs, DefaultMaxPairs)
	def(&l.Records, DefaultMaxRecords)
	if l.InputBytes <= 0 {
		l.InputBytes = DefaultMaxInputBytes
	}
	return l
}

// Option configures Parse, ParseFile and the other parsers.
type Option func(*Limits)

// WithLimits sets the budgets of a parse (zero fields keep their default).
func WithLimits(l Limits) Option { return func(dst *Limits) { *dst = l } }

// budget is what is left of the Limits during one parse.
type budget struct {
	lim                  Limits
	nodes, names, nbytes int
	files                int
	input                int64
	inherited            int
	pairs, records       int
}

// newBudget starts the budget of one parse by fn (the function's name, for
// errors), refusing a nil source (an io.Reader or fs.FS) or a nil option.
func newBudget(fn string, src any, opts []Option) (*budget, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: slurmconf.%s: the source is nil", ErrNilArgument, fn)
	}
	var l Limits
	for k, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: slurmconf.%s: option %d is nil", ErrNilArgument, fn, k)
		}
		o(&l)
	}
	return &budget{lim: l.withDefaults()}, nil
}

// hosts expands a hostlist value within what is left of the host budgets
// (and of the node budget when nodes is set).
func (b *budget) hosts(p Pair, nodes bool) ([]string, error) {
	hb := hostlist.Budget{Hosts: hostlist.DefaultLimit, Bytes: hostlist.DefaultByteLimit}
	const (
		perValue = iota
		perParse
		nodeLimit
	)
	which, whichBytes := perValue, perValue // which limit binds, named only in an error
	if left := b.lim.HostNames - b.names; left < hb.Hosts {
		hb.Hosts, which = left, perParse
	}
	if left := b.lim.Nodes - b.nodes; nodes && left < hb.Hosts {
		hb.Hosts, which = left, nodeLimit
	}
	if left := b.lim.HostBytes - b.nbytes; left < hb.Bytes {
		hb.Bytes, whichBytes = left, perParse
	}
	names, err := b.expand(p.Value, hb)
	if err != nil {
		var he *hostlist.Error
		if !errors.As(err, &he) {
			return nil, errAt(p.ValuePos, "%s: %v", p.Key, err)
		}
		pos := p.ValuePos.Resolve(he.Pos)
		switch {
		case errors.Is(err, hostlist.ErrHostBudget):
			limit := [...]string{
				fmt.Sprintf("%d hosts in one value (hostlist.DefaultLimit)", hostlist.DefaultLimit),
				fmt.Sprintf("%d host names per parse (Limits.HostNames)", b.lim.HostNames),
				fmt.Sprintf("%d nodes (Limits.Nodes)", b.lim.Nodes)}[which]
			return nil, budgetAt(pos, "%s: more than %s", p.Key, limit)
		case errors.Is(err, hostlist.ErrByteBudget):
			limit := [...]string{
				fmt.Sprintf("%d bytes of names in one value (hostlist.DefaultByteLimit)", hostlist.DefaultByteLimit),
				fmt.Sprintf("%d bytes of host names per parse (Limits.HostBytes)", b.lim.HostBytes)}[whichBytes]
			return nil, budgetAt(pos, "%s: more than %s", p.Key, limit)
		case errors.Is(err, hostlist.ErrBudget):
			return nil, budgetAt(pos, "%s: %s", p.Key, he.Msg)
		}
		return nil, errAt(pos, "%s: %s", p.Key, he.Msg)
	}
	b.names += len(names)
	if nodes {
		b.nodes += len(names)
	}
	for _, n := range names {
		b.nbytes += len(n)
	}
	return names, nil
}

// expand is expandWithin, with a shortcut for the commonest value of a
// large file, a single plain name (NodeName=n123): it names itself.
func (b *budget) expand(v string, hb hostlist.Budget) ([]string, error) {
	if v != "" && hb.Hosts > 0 && len(v) <= hb.Bytes && !strings.ContainsAny(v, "[], \t\r\n") {
		return []string{v}, nil
	}
	return expandWithin(v, hb)
}

// inherit counts n pairs handed down by a DEFAULT line.
func (b *budget) inherit(n int, pos Pos) error {
	if n > b.lim.Inherited-b.inherited {
		return budgetAt(pos, "DEFAULT lines hand down more than %d pairs (Limits.Inherited)", b.lim.Inherited)
	}
	b.inherited += n
	return nil
}

// keep counts n pairs kept as written, from the line at pos.
func (b *budget) keep(n int, pos Pos) error {
	if n > b.lim.Pairs-b.pairs {
		return budgetAt(pos, "more than %d key=value pairs kept (Limits.Pairs)", b.lim.Pairs)
	}
	b.pairs += n
	return nil
}

// record counts one record other than a node, the line at pos.
func (b *budget) record(pos Pos) error {
	if b.records >= b.lim.Records {
		return budgetAt(pos, "more than %d records other than nodes (Limits.Records)", b.lim.Records)
	}
	b.records++
	return nil
}

// take counts n more bytes read at the line at pos, refusing them when
// they would go past Limits.InputBytes.
func (b *budget) take(n int, pos Pos) error {
	if int64(n) > b.lim.InputBytes-b.input {
		return budgetAt(pos, "input is longer than %d bytes (Limits.InputBytes)", b.lim.InputBytes)
	}
	b.input += int64(n)
	return nil
}

// expandWithin is hostlist.ExpandBudget, except that a budget used up (0
// left) allows no name instead of meaning the default.
func expandWithin(expr string, hb hostlist.Budget) ([]string, error) {
	if hb.Hosts > 0 && hb.Bytes > 0 {
		return hostlist.ExpandBudget(expr, hb)
	}
	n, err := hostlist.Count(expr)
	if err != nil || n == 0 {
		return nil, err
	}
	cause := hostlist.ErrHostBudget
	if hb.Hosts > 0 {
		cause = hostlist.ErrByteBudget
	}
	return nil, &hostlist.Error{Expr: expr, Pos: position.At(expr, 0), Msg: "budget used up", Err: cause}
}
