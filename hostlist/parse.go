package hostlist

import (
	"math"
	"math/bits"

	"github.com/hpcsched/hpcsched/internal/errtext"
)

const (
	// MaxRangeSize is the largest number of hosts one range (lo-hi) may name.
	MaxRangeSize = 65536
	// DefaultLimit is the largest number of hosts Expand returns.
	DefaultLimit = 1 << 20
	// DefaultByteLimit is the largest number of bytes Expand's names may
	// take together (32 MiB): a short expression with a long prefix, such as
	// 1 KB of text before [0-1023][0-1023], names few enough hosts but
	// gigabytes of text.
	DefaultByteLimit = 32 << 20
	// MaxGroups is the most bracket groups one name may have (rack[0-1]_
	// blade[2,3] has two); it bounds the expander's per-name state.
	MaxGroups = 1024
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

// token is lits[0], group 0, lits[1], group 1, ..., lits[len(lits)-1].
// Group g is ranges[ends[g-1]:ends[g]] (ends[-1] being 0); keeping every
// range in one slice costs no allocation per group.
type token struct {
	start  int // byte offset of the token in the expression
	lits   []string
	ranges []rng
	ends   []int    // where each group ends in ranges
	sizes  []uint64 // hosts named by each group
	size   uint64   // product of sizes
}

func (t *token) groups() int { return len(t.ends) }

func (t *token) group(g int) []rng {
	lo := 0
	if g > 0 {
		lo = t.ends[g-1]
	}
	return t.ranges[lo:t.ends[g]]
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
// before anything proportional to the host count is allocated. Its own
// memory is proportional to len(expr).
func parse(expr string, limit int) ([]token, uint64, error) {
	limit = max(limit, 0)
	p := &parser{expr: expr, limit: uint64(limit)}
	var toks []token
	for p.pos < len(expr) {
		if isSep(expr[p.pos]) {
			p.pos++
			continue
		}
		t, err := p.token()
		if err != nil {
			return nil, 0, err
		}
		if t.size > p.limit-p.total {
			return nil, 0, budgetf(ErrHostBudget, expr, t.start, "expression names more than %d hosts (host budget)", p.limit)
		}
		p.total += t.size
		toks = append(toks, t)
	}
	return toks, p.total, nil
}

func (p *parser) token() (token, error) {
	t := token{start: p.pos, size: 1}
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
			if t.groups() == MaxGroups {
				return t, budgetf(ErrBudget, p.expr, p.pos, "name has more than %d bracket groups (MaxGroups)", MaxGroups)
			}
			t.lits = append(t.lits, p.expr[litStart:p.pos])
			n, err := p.group(&t)
			if err != nil {
				return t, err
			}
			t.ends = append(t.ends, len(t.ranges))
			t.sizes = append(t.sizes, n)
			if n > p.limit/t.size {
				return t, budgetf(ErrHostBudget, p.expr, t.start, "expression names more than %d hosts (host budget)", p.limit)
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

// group parses "[...]" starting at the '[' into t.ranges and returns how
// many hosts it names; it leaves pos after the ']'.
func (p *parser) group(t *token) (uint64, error) {
	open := p.pos
	p.pos++
	var total uint64
	for {
		if p.pos >= len(p.expr) {
			return 0, errorf(p.expr, open, "'[' is never closed")
		}
		c := p.expr[p.pos]
		if c == ']' || c == ',' {
			return 0, errorf(p.expr, p.pos, "empty range")
		}
		r, err := p.rangeElem()
		if err != nil {
			return 0, err
		}
		t.ranges = append(t.ranges, r)
		total += r.size() // at most len(expr) * MaxRangeSize: no overflow
		if total > p.limit {
			return 0, budgetf(ErrHostBudget, p.expr, t.start, "expression names more than %d hosts (host budget)", p.limit)
		}
		if p.pos >= len(p.expr) {
			return 0, errorf(p.expr, open, "'[' is never closed")
		}
		switch c := p.expr[p.pos]; c {
		case ']':
			p.pos++
			return total, nil
		case ',':
			p.pos++
		default:
			return 0, p.unexpected(c)
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
	return errorf(p.expr, p.pos, "unexpected %s in a range", errtext.CharAt(p.expr, p.pos))
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
		return rng{}, budgetf(ErrBudget, p.expr, start, "range %s names %d hosts, more than %d (MaxRangeSize)",
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
		return 0, 0, errorf(p.expr, p.pos, "expected a number, found %s", errtext.CharAt(p.expr, p.pos))
	}
	return n, p.pos - start, nil
}

// satAdd and satMul saturate at MaxUint64 instead of wrapping, so a size
// too large to represent still compares as too large against a budget.
func satAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}
