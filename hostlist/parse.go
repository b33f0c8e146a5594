package hostlist

import "math"

const (
	// MaxRangeSize is the largest number of hosts one range (lo-hi) may name.
	MaxRangeSize = 65536
	// DefaultLimit is the largest number of hosts Expand returns.
	DefaultLimit = 1 << 20
	// maxDigits keeps every number below 10^18, so sums and products of
	// range sizes never overflow uint64.
	maxDigits = 18
	// noLimit is the limit Count uses: large but still overflow-safe.
	noLimit = math.MaxInt64 / 2
)

// rng is one element of a bracket group: lo..hi printed with at least width
// digits.
type rng struct {
	lo, hi uint64
	width  int
}

func (r rng) size() uint64 { return r.hi - r.lo + 1 }

// token is prefix, then groups[0], lits[1], groups[1], ..., lits[len(groups)].
type token struct {
	lits   []string
	groups [][]rng
	sizes  []uint64 // hosts named by each group
	size   uint64   // product of sizes
}

type parser struct {
	expr  string
	pos   int
	limit uint64
	total uint64
}

func isSep(c byte) bool {
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parse splits expr into tokens and checks that it names at most limit hosts
// before anything proportional to the host count is allocated.
func parse(expr string, limit int) ([]token, uint64, error) {
	if limit < 0 {
		limit = 0
	}
	p := &parser{expr: expr, limit: uint64(limit)}
	var toks []token
	for p.pos < len(expr) {
		if isSep(expr[p.pos]) {
			p.pos++
			continue
		}
		start := p.pos
		t, err := p.token()
		if err != nil {
			return nil, 0, err
		}
		if t.size > p.limit-p.total {
			return nil, 0, errorf(expr, start, "expression names more than %d hosts", p.limit)
		}
		p.total += t.size
		toks = append(toks, t)
	}
	return toks, p.total, nil
}

func (p *parser) token() (token, error) {
	t := token{size: 1}
	litStart := p.pos
	for p.pos < len(p.expr) {
		c := p.expr[p.pos]
		switch {
		case isSep(c):
			t.lits = append(t.lits, p.expr[litStart:p.pos])
			return t, nil
		case c == ']':
			return t, errorf(p.expr, p.pos, "']' without a matching '['")
		case c == '[':
			t.lits = append(t.lits, p.expr[litStart:p.pos])
			g, n, err := p.group()
			if err != nil {
				return t, err
			}
			t.groups = append(t.groups, g)
			t.sizes = append(t.sizes, n)
			if n > p.limit/t.size {
				return t, errorf(p.expr, litStart, "expression names more than %d hosts", p.limit)
			}
			t.size *= n
			litStart = p.pos
		default:
			p.pos++
		}
	}
	t.lits = append(t.lits, p.expr[litStart:])
	return t, nil
}

// group parses "[...]" starting at the '['; it leaves pos after the ']'.
func (p *parser) group() ([]rng, uint64, error) {
	open := p.pos
	p.pos++
	var g []rng
	var total uint64
	for {
		if p.pos >= len(p.expr) {
			return nil, 0, errorf(p.expr, open, "'[' is never closed")
		}
		c := p.expr[p.pos]
		if c == ']' || c == ',' {
			return nil, 0, errorf(p.expr, p.pos, "empty range")
		}
		r, err := p.rangeElem()
		if err != nil {
			return nil, 0, err
		}
		g = append(g, r)
		total += r.size()
		if p.pos >= len(p.expr) {
			return nil, 0, errorf(p.expr, open, "'[' is never closed")
		}
		switch c := p.expr[p.pos]; c {
		case ']':
			p.pos++
			return g, total, nil
		case ',':
			p.pos++
		default:
			return nil, 0, p.unexpected(c)
		}
	}
}

func (p *parser) unexpected(c byte) error {
	switch c {
	case ':':
		return errorf(p.expr, p.pos, "stepping (':') is not supported")
	case '[':
		return errorf(p.expr, p.pos, "brackets cannot be nested")
	}
	return errorf(p.expr, p.pos, "unexpected %q in a range", c)
}

// rangeElem parses "lo" or "lo-hi".
func (p *parser) rangeElem() (rng, error) {
	start := p.pos
	lo, width, err := p.number()
	if err != nil {
		return rng{}, err
	}
	hi := lo
	if p.pos < len(p.expr) && p.expr[p.pos] == '-' {
		p.pos++
		if hi, _, err = p.number(); err != nil {
			return rng{}, err
		}
	}
	if lo > hi {
		return rng{}, errorf(p.expr, start, "range %s is descending", p.expr[start:p.pos])
	}
	if hi-lo >= MaxRangeSize {
		return rng{}, errorf(p.expr, start, "range %s names %d hosts, more than %d",
			p.expr[start:p.pos], hi-lo+1, MaxRangeSize)
	}
	return rng{lo: lo, hi: hi, width: width}, nil
}

func (p *parser) number() (uint64, int, error) {
	start := p.pos
	var n uint64
	for p.pos < len(p.expr) && isDigit(p.expr[p.pos]) {
		if p.pos-start == maxDigits {
			return 0, 0, errorf(p.expr, start, "number has more than %d digits", maxDigits)
		}
		n = n*10 + uint64(p.expr[p.pos]-'0')
		p.pos++
	}
	if p.pos == start {
		if p.pos >= len(p.expr) {
			return 0, 0, errorf(p.expr, p.pos, "expected a number")
		}
		return 0, 0, errorf(p.expr, p.pos, "expected a number, found %q", p.expr[p.pos])
	}
	return n, p.pos - start, nil
}
