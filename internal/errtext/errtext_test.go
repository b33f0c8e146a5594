package errtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExcerpt(t *testing.T) {
	assert.Equal(t, `"a&b"`, Excerpt("a&b", 1))
	long := strings.Repeat("x", 300)
	got := Excerpt(long, 150)
	assert.Equal(t, `..."`+strings.Repeat("x", MaxQuoted)+`"... (300 bytes)`, got)
	assert.True(t, strings.HasPrefix(Excerpt(long, 0), `"x`), "no leading cut at the start")
	assert.True(t, strings.HasSuffix(Excerpt(long, 300), `x" (300 bytes)`), "no trailing cut at the end")
	assert.Equal(t, `"`+strings.Repeat("x", MaxQuoted)+`"... (300 bytes)`, Excerpt(long, -5))
}

func TestCharAt(t *testing.T) {
	assert.Equal(t, "'ä'", CharAt("aä", 1))
	assert.Equal(t, `"\xff"`, CharAt("a\xff", 1))
	assert.Equal(t, "the end", CharAt("a", 1))
	assert.Equal(t, "'b'", CharAt("ab", 1))
}
