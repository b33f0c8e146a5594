package sim

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
)

// swfOddByte is a byte beside the digits or the spaces that a line
// should not hold: the neighbours of '0'-'9' and of the white space
// bytes, and non-ASCII bytes.
func swfOddByte(r *rand.Rand) byte {
	odd := []byte{'/', ':', '+', '.', 'e', '\x00', '\x08', '\x0e', '\x1f', '!', 0x7f, 0x80, 0xa0, 0xfa, 0xff}
	return odd[r.IntN(len(odd))]
}

// randomSpacing is a separator: mostly runs of spaces (as long as
// KTH-SP2's and longer), sometimes tabs and the other ASCII white space.
func randomSpacing(r *rand.Rand) string {
	if r.IntN(6) > 0 {
		return strings.Repeat(" ", 1+r.IntN(18))
	}
	var b strings.Builder
	for k := 1 + r.IntN(5); k > 0; k-- {
		b.WriteByte(" \t\v\f\r\n"[r.IntN(6)])
	}
	return b.String()
}

// randomIntField is a field as trace lines hold it, or nearly: 1 to 20
// digits with leading zeros, signs, values at the field's limit, an odd
// byte inside or after the digits.
func randomIntField(r *rand.Rand, i int) string {
	switch r.IntN(12) {
	case 0:
		return strings.Repeat("0", r.IntN(12)) + strconv.Itoa(r.IntN(1000))
	case 1:
		return "-" + strconv.FormatInt(int64(swfFieldLimit(i))+int64(r.IntN(3))-1, 10)
	case 2:
		return strconv.FormatInt(int64(swfFieldLimit(i))+int64(r.IntN(3))-1, 10)
	case 3:
		s := []byte(strconv.FormatInt(r.Int64N(1e9), 10))
		s[r.IntN(len(s))] = swfOddByte(r)
		return string(s)
	case 4:
		return strconv.FormatInt(r.Int64N(1e9), 10) + string(swfOddByte(r))
	case 5:
		return []string{"-", "--1", "+1", "-+1", "1-", ""}[r.IntN(6)]
	case 6:
		digits := make([]byte, 1+r.IntN(20))
		for k := range digits {
			digits[k] = byte('0' + r.IntN(10))
		}
		return string(digits)
	}
	v := strconv.FormatInt(r.Int64N(1<<uint(1+r.IntN(40))), 10)
	if r.IntN(4) == 0 {
		v = "-" + v
	}
	return v
}

// TestSWFIntsAsFieldsOnRandomLines checks the one-scan reading against the
// general one on random lines: runs of spaces as long as KTH-SP2's and
// longer, tabs and the other ASCII white space, signs, leading zeros, 1
// to 20 digits, values at their field's limit and one past it, and bytes
// next to the digits and spaces (non-ASCII ones included). Where the fast
// reading takes a line it gives the general reading's values; it takes
// every line of 18 plain integers in range, and declines the others.
func TestSWFIntsAsFieldsOnRandomLines(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	lines := 30000
	if testing.Short() {
		lines = 5000
	}
	fast, declined := 0, 0
	for range lines {
		count := 18
		if r.IntN(10) == 0 {
			count = 16 + r.IntN(6)
		}
		odd := r.IntN(3) == 0 // else every field is a plain integer
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteString(randomSpacing(r))
		}
		for i := range count {
			if i > 0 {
				b.WriteString(randomSpacing(r))
			}
			if odd && r.IntN(6) == 0 {
				b.WriteString(randomIntField(r, min(i, 17)))
			} else {
				b.WriteString(strconv.Itoa(r.IntN(1<<uint(1+r.IntN(25))) - 1))
			}
		}
		if r.IntN(3) == 0 {
			b.WriteString(randomSpacing(r))
		}
		if checkIntsAsFields(t, []byte(b.String())) {
			fast++
		} else {
			declined++
		}
	}
	if fast < lines/2 || declined == 0 {
		t.Fatalf("the fast reading took %d lines and declined %d: the test covers too little", fast, declined)
	}
}

// checkIntsAsFields compares the two readings of text and reports
// whether the fast one took it.
func checkIntsAsFields(t *testing.T, text []byte) bool {
	t.Helper()
	var want, got [18]float64
	var buf [maxSWFFields][]byte
	_, nf, err := parseSWFFields(text, 1, buf[:0], &want)
	if !parseSWFInts(text, &got) {
		if err == nil && nf == 18 && plainInts(text) {
			t.Fatalf("%q: 18 integers in range, declined by the fast reading", text)
		}
		return false
	}
	if err != nil || nf != 18 {
		t.Fatalf("%q: read fast, but the general reading gives %d fields, %v", text, nf, err)
	}
	if got != want {
		t.Fatalf("%q: read fast as %v, generally as %v", text, got, want)
	}
	return true
}

// plainInts reports whether text is fields of an optional '-' and 1 to
// 18 ASCII digits between ASCII white space: what the fast reading must
// take when the values are in range.
func plainInts(text []byte) bool {
	for _, f := range strings.Fields(string(text)) {
		d := strings.TrimPrefix(f, "-")
		if len(d) == 0 || len(d) > 18 || strings.Trim(d, "0123456789") != "" {
			return false
		}
	}
	return !strings.ContainsFunc(string(text), func(c rune) bool { return c >= 0x80 })
}

// The one-scan reading checks a field's limit only past nine digits: every
// limit must be at least the largest nine-digit value.
func TestNineDigitsUnderEveryLimit(t *testing.T) {
	for i := range 18 {
		if limit := swfFieldLimit(i); limit < 999_999_999 {
			t.Errorf("field %d's limit %.0f is under nine digits: parseSWFInts must check it", i+1, limit)
		}
	}
}
