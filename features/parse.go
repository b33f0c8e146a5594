package features

import (
	"errors"
	"fmt"

	"github.com/hpcsched/hpcsched/internal/errtext"
	"github.com/hpcsched/hpcsched/position"
)

const (
	// MaxLength is the longest expression Parse reads, in bytes.
	MaxLength = 64 << 10
	// MaxCount is the largest count a counted term may ask for.
	MaxCount = 1 << 24
)

// ErrBudget is the cause of a SyntaxError for an expression beyond
// MaxLength or a count beyond MaxCount; test for it with errors.Is.
var ErrBudget = errors.New("features: budget exceeded")

// SyntaxError is a malformed expression. Pos is where in Expr (Offset is
// the byte offset; Line and Column count from the start of Expr). The
// message quotes an Expr longer than 128 bytes only around Pos; Expr
// keeps all of it.
type SyntaxError struct {
	Expr string
	Pos  position.Position
	Msg  string
	// Err is ErrBudget when a limit was exceeded, nil otherwise.
	Err error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("constraint %s: offset %d: %s", errtext.Excerpt(e.Expr, e.Pos.Offset), e.Pos.Offset, e.Msg)
}

// Position is where in Expr the problem is.
func (e *SyntaxError) Position() position.Position { return e.Pos }

// Unwrap returns ErrBudget for budget errors.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Option changes how Parse reads an expression.
type Option func(*parser)

// Legacy accepts, besides the modern grammar, what Slurm 2.0 through 22.05
// accepted: counted terms unbracketed in an AND chain (A*1&B*2) and a
// matching-OR bracket joined to the chain with '|' (A|B&[C|D]|E).
func Legacy() Option { return func(p *parser) { p.legacy = true } }

type parser struct {
	s      string
	pos    int
	legacy bool
	// bracketAt is the offset of the first bracket group, -1 before one.
	bracketAt int
}

// Parse reads a constraint expression. An empty (or all-blank) expression is
// an error: a request without constraints has no Expr.
func Parse(s string, opts ...Option) (*Expr, error) {
	p := &parser{s: s, bracketAt: -1}
	for _, o := range opts {
		o(p)
	}
	if len(s) > MaxLength {
		return nil, p.budgetAt(MaxLength, "expression longer than %d bytes (MaxLength)", MaxLength)
	}
	p.skipBlanks()
	if p.pos == len(s) {
		return nil, p.errAt(p.pos, "empty expression")
	}
	root, err := p.chain(false)
	if err != nil {
		return nil, err
	}
	if p.pos < len(s) {
		switch s[p.pos] {
		case ')':
			return nil, p.errAt(p.pos, "')' without a matching '('")
		case ']':
			return nil, p.errAt(p.pos, "']' without a matching '['")
		}
		return nil, p.errAt(p.pos, "unexpected %s", errtext.CharAt(s, p.pos))
	}
	if err := p.checkTop(root); err != nil {
		return nil, err
	}
	return &Expr{root: root, src: s, legacy: p.legacy}, nil
}

func (p *parser) errAt(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Expr: p.s, Pos: position.At(p.s, pos), Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) budgetAt(pos int, format string, args ...any) *SyntaxError {
	e := p.errAt(pos, format, args...)
	e.Err = ErrBudget
	return e
}

func (p *parser) skipBlanks() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':'
}

// peek returns the next non-blank byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skipBlanks()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

// chain reads operand (op operand)*, stopping before ')' , ']' or the end.
func (p *parser) chain(inParen bool) (*node, error) {
	n := &node{kind: kChain, pos: p.pos, paren: inParen}
	for {
		it, err := p.operand(inParen)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, it)
		switch c := p.peek(); c {
		case '&', ',', '|':
			if c == ',' {
				c = '&'
			}
			n.ops = append(n.ops, c)
			p.pos++
			if p.peek() == 0 {
				return nil, p.errAt(p.pos, "expression ends after %q", p.s[p.pos-1])
			}
		case 0, ')', ']':
			return n, nil
		case '(', '[':
			return nil, p.errAt(p.pos, "expected '&' or '|' before %q", c)
		default:
			return nil, p.errAt(p.pos, "expected '&' or '|' after %q, found %s", it.String(), errtext.CharAt(p.s, p.pos))
		}
	}
}

// operand reads a name, a parenthesised chain or a bracket group, with an
// optional *count.
func (p *parser) operand(inParen bool) (*node, error) {
	var n *node
	switch c := p.peek(); {
	case c == 0:
		return nil, p.errAt(p.pos, "expected a feature name")
	case isNameByte(c):
		n = p.name()
	case c == '(':
		if inParen {
			return nil, p.errAt(p.pos, "parentheses cannot be nested")
		}
		open := p.pos
		p.pos++
		if p.peek() == ')' {
			return nil, p.errAt(open, "empty parentheses")
		}
		inner, err := p.chain(true)
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errAt(open, "'(' is never closed")
		}
		p.pos++
		inner.pos = open
		n = inner
	case c == '[':
		if inParen {
			return nil, p.errAt(p.pos, "brackets cannot be used inside parentheses")
		}
		return p.bracket()
	default:
		return nil, p.errAt(p.pos, "expected a feature name, found %s", errtext.CharAt(p.s, p.pos))
	}
	return p.maybeCount(n, inParen)
}

func (p *parser) name() *node {
	start := p.pos
	for p.pos < len(p.s) && isNameByte(p.s[p.pos]) {
		p.pos++
	}
	return &node{kind: kFeature, pos: start, name: p.s[start:p.pos]}
}

func (p *parser) maybeCount(n *node, inParen bool) (*node, error) {
	if p.peek() != '*' {
		return n, nil
	}
	star := p.pos
	if inParen {
		return nil, p.errAt(star, "a count cannot be used inside parentheses")
	}
	p.pos++
	p.skipBlanks()
	start := p.pos
	v := 0
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		v = v*10 + int(p.s[p.pos]-'0')
		if v > MaxCount {
			return nil, p.budgetAt(start, "count is larger than %d (MaxCount)", MaxCount)
		}
		p.pos++
	}
	if p.pos == start {
		return nil, p.errAt(start, "expected a count after '*'")
	}
	if v == 0 {
		return nil, p.errAt(start, "a count must be at least 1")
	}
	return &node{kind: kCounted, pos: n.pos, items: []*node{n}, count: v}, nil
}

// bracket reads [alt|alt|...] or [term*n&term*n...].
func (p *parser) bracket() (*node, error) {
	open := p.pos
	if p.bracketAt >= 0 {
		return nil, p.errAt(open, "only one bracket group is allowed (the first is at offset %d)", p.bracketAt)
	}
	p.bracketAt = open
	p.pos++
	if p.peek() == ']' {
		return nil, p.errAt(open, "empty brackets")
	}
	var terms []*node
	var seps []byte
	for {
		t, err := p.operand(false)
		if err != nil {
			return nil, err
		}
		if t.kind == kMatchOr || t.kind == kCounts {
			return nil, p.errAt(t.pos, "brackets cannot be nested")
		}
		terms = append(terms, t)
		c := p.peek()
		if c == ']' {
			p.pos++
			break
		}
		if c == 0 {
			return nil, p.errAt(open, "'[' is never closed")
		}
		if c != '&' && c != ',' && c != '|' {
			return nil, p.errAt(p.pos, "expected '&', '|' or ']', found %s", errtext.CharAt(p.s, p.pos))
		}
		if c == ',' {
			c = '&'
		}
		seps = append(seps, c)
		p.pos++
	}
	return p.classifyBracket(open, terms, seps)
}

func (p *parser) classifyBracket(open int, terms []*node, seps []byte) (*node, error) {
	or, and := false, false
	for _, s := range seps {
		or = or || s == '|'
		and = and || s == '&'
	}
	if or && and {
		return nil, p.errAt(open, "a bracket group is either a matching OR ([a|b]) or counted terms ([a*1&b*2]), not both")
	}
	if and || (!or && terms[0].kind == kCounted) {
		for _, t := range terms {
			if t.kind == kCounted {
				continue
			}
			for _, u := range terms {
				if u.kind == kCounted {
					return nil, p.errAt(t.pos, "%q has no count; in a counted bracket every term needs one", t.String())
				}
			}
			return nil, p.errAt(open, "'&' inside brackets needs a count on every term (as in [a*1&b*2]); a matching OR uses '|'")
		}
		return &node{kind: kCounts, pos: open, items: terms}, nil
	}
	for _, t := range terms {
		switch t.kind {
		case kCounted:
			return nil, p.errAt(t.pos, "a count cannot be used in a matching OR")
		case kChain:
			return nil, p.errAt(t.pos, "matching-OR alternatives must be feature names")
		}
	}
	return &node{kind: kMatchOr, pos: open, items: terms}, nil
}

// checkTop enforces the rules that span the top-level chain: where a bracket
// may stand and where counts may.
func (p *parser) checkTop(root *node) error {
	hasOr := false
	for _, op := range root.ops {
		hasOr = hasOr || op == '|'
	}
	var counted, matchOr *node
	nCounted := 0
	for i, it := range root.items {
		switch it.kind {
		case kCounted:
			nCounted++
			if counted == nil {
				counted = it
			}
		case kMatchOr:
			matchOr = it
			if !p.legacy && !andJoined(root, i) {
				return p.errAt(it.pos, "a bracket group can only be joined to the rest with '&'")
			}
		case kCounts:
			if !andJoined(root, i) {
				return p.errAt(it.pos, "a counted bracket can only be joined to the rest with '&'")
			}
		}
	}
	if counted == nil {
		return nil
	}
	if !p.legacy && len(root.items) > 1 {
		return p.errAt(counted.pos, "counts outside brackets are allowed only for a single term; write [%s]", joinCounted(root))
	}
	if hasOr {
		return p.errAt(counted.pos, "counts cannot be combined with '|'")
	}
	if matchOr != nil {
		return p.errAt(counted.pos, "counts cannot be combined with a matching OR")
	}
	if p.bracketAt >= 0 {
		return p.errAt(counted.pos, "counts outside brackets cannot be combined with a counted bracket")
	}
	return nil
}

// andJoined reports whether item i of a chain is joined by '&' to what comes
// before it and everything after it is joined by '&' too, so that reading
// left to right ANDs it with the rest of the chain.
func andJoined(chain *node, i int) bool {
	if i > 0 && chain.ops[i-1] != '&' {
		return false
	}
	for _, op := range chain.ops[i:] {
		if op != '&' {
			return false
		}
	}
	return true
}

func joinCounted(root *node) string {
	var b []byte
	for _, it := range root.items {
		if it.kind == kCounted {
			if len(b) > 0 {
				b = append(b, '&')
			}
			b = append(b, it.String()...)
		}
	}
	return string(b)
}
