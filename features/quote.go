package features

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxQuoted is the longest expression an error message quotes whole;
// a longer one (up to MaxLength) is quoted around the offset at fault,
// so a message stays a line however long the input.
const maxQuoted = 128

// excerpt quotes s, or for a long s the bytes around off, marked with
// "..." where cut and followed by s's length.
func excerpt(s string, off int) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	lo := min(max(off-maxQuoted/2, 0), len(s))
	hi := min(lo+maxQuoted, len(s))
	q := strconv.Quote(s[lo:hi])
	if lo > 0 {
		q = "..." + q
	}
	if hi < len(s) {
		q += "..."
	}
	return fmt.Sprintf("%s (%d bytes)", q, len(s))
}

// charAt quotes the character at s[i:]: the whole UTF-8 sequence, so
// "ä" is reported as 'ä' and not as its first byte read as Latin-1.
func charAt(s string, i int) string {
	if i >= len(s) {
		return "the end"
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return strconv.Quote(s[i : i+1])
	}
	return strconv.QuoteRune(r)
}
