package features

import (
	"strconv"
	"strings"
)

type kind uint8

const (
	kFeature kind = iota // a feature name
	kChain               // operands joined by & and |, evaluated left to right
	kMatchOr             // [a|b|c]
	kCounts              // [x*2&y*3]
	kCounted             // x*2 (inside kCounts, or standing alone)
)

// node is one element of the syntax tree. pos is the byte offset where it
// starts in the text it was parsed from; Equal ignores it.
type node struct {
	kind  kind
	pos   int
	name  string  // kFeature
	ops   []byte  // kChain: ops[i] joins items[i] and items[i+1]; '&' or '|'
	items []*node // kChain operands, kMatchOr alternatives, kCounts terms, kCounted's term
	paren bool    // kChain written in parentheses
	count int     // kCounted
}

func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case kFeature:
		b.WriteString(n.name)
	case kChain:
		if n.paren {
			b.WriteByte('(')
		}
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(n.ops[i-1])
			}
			it.write(b)
		}
		if n.paren {
			b.WriteByte(')')
		}
	case kMatchOr, kCounts:
		sep := byte('|')
		if n.kind == kCounts {
			sep = '&'
		}
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(sep)
			}
			it.write(b)
		}
		b.WriteByte(']')
	case kCounted:
		n.items[0].write(b)
		b.WriteByte('*')
		b.WriteString(strconv.Itoa(n.count))
	}
}

func (n *node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *node) equal(m *node) bool {
	if n.kind != m.kind || n.name != m.name || n.paren != m.paren || n.count != m.count ||
		string(n.ops) != string(m.ops) || len(n.items) != len(m.items) {
		return false
	}
	for i := range n.items {
		if !n.items[i].equal(m.items[i]) {
			return false
		}
	}
	return true
}

// walkFeatures calls f for every feature name, left to right.
func (n *node) walkFeatures(f func(*node) bool) bool {
	if n.kind == kFeature {
		return f(n)
	}
	for _, it := range n.items {
		if !it.walkFeatures(f) {
			return false
		}
	}
	return true
}

// Expr is a parsed constraint expression; get one from Parse. An Expr is
// immutable and safe for concurrent use.
//
// The zero Expr (and a nil *Expr) is the empty expression: no constraint.
// Every node matches it, String is "", and Features, Alternatives and
// Counts are nil, so a request holding &Expr{} asks what a request without
// a constraint asks.
type Expr struct {
	root   *node  // a kChain without parentheses; nil in the zero Expr
	src    string // the text parsed, which node positions refer to
	legacy bool
}

// tree is e's syntax tree: an empty chain for the zero Expr.
func (e *Expr) tree() *node {
	if e == nil || e.root == nil {
		return &node{kind: kChain}
	}
	return e.root
}

// String returns the canonical form: ',' written '&', blanks dropped, the
// rest as written. Parsing it (with the same options) gives an Equal Expr.
func (e *Expr) String() string { return e.tree().String() }

// Equal reports whether e and f have the same syntax tree, ignoring
// positions and whether they were parsed with Legacy.
func (e *Expr) Equal(f *Expr) bool { return e.tree().equal(f.tree()) }

// Features returns the distinct feature names e mentions, in order of first
// appearance.
func (e *Expr) Features() []string {
	var out []string
	seen := map[string]bool{}
	e.tree().walkFeatures(func(n *node) bool {
		if !seen[n.name] {
			seen[n.name] = true
			out = append(out, n.name)
		}
		return true
	})
	return out
}

// bracket returns the bracket group (matching OR or counts), if any.
func (e *Expr) bracket() *node {
	for _, it := range e.tree().items {
		if it.kind == kMatchOr || it.kind == kCounts {
			return it
		}
	}
	return nil
}

// Term is a per-node sub-expression: one feature, or a parenthesised
// chain. Alternatives and Counts hand them out.
type Term struct{ n *node }

func (t Term) String() string { return t.tree().String() }

// tree is t's syntax tree: an empty chain (no constraint) for the zero Term.
func (t Term) tree() *node {
	if t.n == nil {
		return &node{kind: kChain}
	}
	return t.n
}

// Alternatives returns the matching-OR alternatives ([a|b|c] gives a, b,
// c), or nil when the expression has none. Every node of a job must satisfy
// the same one alternative.
func (e *Expr) Alternatives() []Term {
	b := e.bracket()
	if b == nil || b.kind != kMatchOr {
		return nil
	}
	out := make([]Term, len(b.items))
	for i, it := range b.items {
		out[i] = Term{it}
	}
	return out
}

// Count is a counted term: at least N of the job's nodes satisfy Term.
type Count struct {
	Term Term
	N    int
}

func (c Count) String() string { return c.Term.String() + "*" + strconv.Itoa(c.N) }

// Counts returns the counted terms in the order written: from a counted
// bracket ([a*2&b*4]), a lone counted term (gpu*4) or, with Legacy, counted
// terms of the AND chain (A&B*1&C*2). Nil when there are none.
func (e *Expr) Counts() []Count {
	var out []Count
	add := func(c *node) { out = append(out, Count{Term{c.items[0]}, c.count}) }
	for _, it := range e.tree().items {
		switch it.kind {
		case kCounted:
			add(it)
		case kCounts:
			for _, c := range it.items {
				add(c)
			}
		}
	}
	return out
}

// CountsBracketed reports whether the counted terms were written in a
// bracket ([a*1&b*2]) rather than as a chain (a*1&b*2). Slurm 22.05 treats
// the two differently: it fills each bracketed term from its own nodes,
// but requires an unbracketed term's picks of every later term, so the
// answer then depends on the order of the NodeName lines (the Novotný thesis §3.3,
// ../shared/slurm2205 vectors 1-3 and 43-52).
func (e *Expr) CountsBracketed() bool {
	b := e.bracket()
	return b != nil && b.kind == kCounts
}

// PerNode returns the per-node part as text, as the Novotný thesis decomposes it: the
// chain with a matching-OR bracket written as a parenthesised OR and counted
// terms removed. "A|B&[C|D]|E" gives "A|B&(C|D)|E"; "A&B*1&C*2&D" gives
// "A&D"; an expression of counts only gives "".
func (e *Expr) PerNode() string {
	var b strings.Builder
	first := true
	root := e.tree()
	for i, it := range root.items {
		if it.kind == kCounted || it.kind == kCounts {
			continue
		}
		if !first {
			b.WriteByte(root.ops[i-1])
		}
		first = false
		if it.kind == kMatchOr {
			b.WriteByte('(')
			for j, alt := range it.items {
				if j > 0 {
					b.WriteByte('|')
				}
				alt.write(&b)
			}
			b.WriteByte(')')
			continue
		}
		it.write(&b)
	}
	return b.String()
}

// MarshalText writes the canonical form, so a request holding an Expr can
// be saved as JSON.
func (e *Expr) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText parses text written by MarshalText. It accepts the Legacy
// grammar too, since that is a superset of the modern one.
func (e *Expr) UnmarshalText(text []byte) error {
	if len(text) == 0 { // what the zero Expr marshals to
		*e = Expr{}
		return nil
	}
	p, err := Parse(string(text), Legacy())
	if err != nil {
		return err
	}
	*e = *p
	return nil
}
