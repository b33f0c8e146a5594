// Package errtext quotes user input in error messages: a long input
// around the offset at fault rather than whole, so a message stays a line
// however long the input, and a character by its whole UTF-8 sequence.
// The parsers of hostlist and features share it.
package errtext

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is the longest input an error message quotes whole.
const MaxQuoted = 128

// Excerpt quotes s, or for a longer s than MaxQuoted the bytes around
// off, marked with "..." where cut and followed by s's length.
func Excerpt(s string, off int) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	lo := min(max(off-MaxQuoted/2, 0), len(s))
	hi := min(lo+MaxQuoted, len(s))
	q := strconv.Quote(s[lo:hi])
	if lo > 0 {
		q = "..." + q
	}
	if hi < len(s) {
		q += "..."
	}
	return fmt.Sprintf("%s (%d bytes)", q, len(s))
}

// CharAt quotes the character at s[i:]: the whole UTF-8 sequence, so
// "ä" is reported as 'ä' and not as its first byte read as Latin-1; a
// byte that starts no valid sequence is quoted as a string ("\xff"), and
// i at or past the end is "the end".
func CharAt(s string, i int) string {
	if i >= len(s) {
		return "the end"
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return strconv.Quote(s[i : i+1])
	}
	return strconv.QuoteRune(r)
}
