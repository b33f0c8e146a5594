package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomSWFField is a field of the kinds traces hold and some they should
// not: short integers, negatives, -0, long digit runs, decimals,
// exponents, signs alone or inside, non-ASCII digits, values at and over
// the limits.
func randomSWFField(r *rand.Rand, i int) string {
	switch r.IntN(16) {
	case 0:
		return "-1"
	case 1:
		return "-0"
	case 2:
		return strings.Repeat("9", 1+r.IntN(20))
	case 3:
		return fmt.Sprintf("%d.%d", r.IntN(100), r.IntN(10))
	case 4:
		return "1e3"
	case 5:
		return "-"
	case 6:
		return "１２" // full-width digits
	case 7:
		return fmt.Sprint(int64(swfFieldLimit(i)) + int64(r.IntN(3)) - 1)
	case 8:
		return fmt.Sprint(-int64(swfFieldLimit(i)) - int64(r.IntN(3)) + 1)
	case 9:
		return "+5"
	case 10:
		return "0x1F"
	case 11:
		return "5-3"
	}
	return fmt.Sprint(r.IntN(100000))
}

// TestSWFIntsReadAsFields checks that the one-scan reading of an integer
// line gives the values the general reading gives, and declines every
// line the general reading fails on or reads otherwise, on random lines.
func TestSWFIntsReadAsFields(t *testing.T) {
	seed := uint64(20261129)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	seps := []string{" ", "  ", "\t", " \t ", "\u00a0", "\v"}
	fast, declined, lines := 0, 0, 20000
	if testing.Short() {
		lines = 3000
	}
	for n := 0; n < lines; n++ {
		count := 18
		switch r.IntN(8) {
		case 0:
			count = 17 + r.IntN(6)
		case 1:
			count = 21
		}
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		clean := r.IntN(3) > 0 // most lines are all short integers
		for i := 0; i < count; i++ {
			if i > 0 {
				b.WriteString(seps[r.IntN(len(seps))])
			}
			if clean || i >= 18 || r.IntN(8) > 0 {
				b.WriteString(fmt.Sprint(r.IntN(1000000) - 1))
			} else {
				b.WriteString(randomSWFField(r, i))
			}
		}
		if r.IntN(4) == 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		text := []byte(b.String())
		var want, got [18]float64
		var buf [maxSWFFields][]byte
		_, nf, err := parseSWFFields(text, 1, buf[:0], &want)
		if !parseSWFInts(text, &got) {
			declined++
			continue
		}
		fast++
		if err != nil || nf != 18 {
			t.Fatalf("%q: read in one scan, but the general reading gives %d fields, %v", text, nf, err)
		}
		for i := range want {
			if got[i] != want[i] || (got[i] == 0 && fmt.Sprint(1/got[i]) != fmt.Sprint(1/want[i])) {
				t.Fatalf("%q: field %d is %v in one scan, %v read generally", text, i+1, got[i], want[i])
			}
		}
	}
	if fast == 0 || declined == 0 {
		t.Fatalf("one scan read %d lines and declined %d: the test covers too little", fast, declined)
	}
}

// TestSWFIntsDeclines lists lines the one scan must leave to the general
// reading.
func TestSWFIntsDeclines(t *testing.T) {
	ints := func(n int) []string {
		f := make([]string, n)
		for i := range f {
			f[i] = fmt.Sprint(i + 1)
		}
		return f
	}
	line := func(f []string) string { return strings.Join(f, " ") }
	with := func(i int, v string) string {
		f := ints(18)
		f[i] = v
		return line(f)
	}
	for _, text := range []string{
		line(ints(17)), line(ints(19)), line(ints(21)),
		line(append(ints(16), "5-3")), // 17 fields, not 18 integers
		with(3, "1.5"), with(3, "1e3"), with(0, "+1"), with(0, "-"), with(2, "１"),
		with(1, "4294967297"), with(0, "2147483648"), with(0, "-2147483648"),
		with(4, strings.Repeat("1", 19)), line(ints(18)) + " \u00a0",
	} {
		var vals [18]float64
		if parseSWFInts([]byte(text), &vals) {
			t.Errorf("%q was read in one scan", text)
		}
	}
	var vals [18]float64
	if !parseSWFInts([]byte(" \t"+with(1, "4294967296")+"\r"), &vals) || vals[1] != 1<<32 {
		t.Errorf("an integer line at the limit was not read in one scan: %v", vals)
	}
}

// A user's name is "u" and its number, whichever users came before.
func TestUserNames(t *testing.T) {
	var u userNames
	r := rand.New(rand.NewPCG(3, 3))
	for range 5000 {
		user := r.IntN(300) - 2
		if r.IntN(50) == 0 {
			user = int(r.Int64()) // far apart, negative too
		}
		if got, want := u.name(user), fmt.Sprintf("u%d", user); got != want {
			t.Fatalf("user %d is named %q, want %q", user, got, want)
		}
	}
}
