package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A lone - reads the names from standard input, as a pipe from squeue
// gives them; bad input is refused with its position, big input before
// any name is built.
func TestHostlistReadsStandardInput(t *testing.T) {
	for _, c := range []struct {
		name, sub, in, want, err string
	}{
		{"lines and commas", "compress", "n1 n2\nn3,n5\r\n", "n[1-3,5]\n", ""},
		{"expressions", "count", "n[1-4]\tm[1-2]\n", "6\n", ""},
		{"empty", "count", "", "0\n", ""},
		{"a NUL", "compress", "n1\n\x00", "", "byte 3 is 0x00"},
		{"too much", "compress", strings.Repeat("n", hostlistStdinLimit+1), "", "more than 33554432 bytes"},
		{"a bad range", "expand", "n[5-3]", "", "descending"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := hostlistFrom([]string{c.sub, "-"}, strings.NewReader(c.in), &out)
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, c.want, out.String())
		})
	}
	var out bytes.Buffer
	err := hostlistFrom([]string{"count", "-", "n1"}, strings.NewReader("m1"), &out)
	assert.ErrorContains(t, err, "stands alone")
	assert.NoError(t, hostlistFrom([]string{"count", "n-", "m1"}, strings.NewReader(""), &out), "a name ending in - is a name")
}
