package features

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An error names a character by its whole UTF-8 sequence, and quotes a
// long expression around the offset at fault, not whole: an expression of
// 64 KiB made a message of 64 KiB.
func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse("ä")
	require.EqualError(t, err, `constraint "ä": offset 0: expected a feature name, found 'ä'`)
	_, err = Parse("a&\xff")
	require.EqualError(t, err, `constraint "a&\xff": offset 2: expected a feature name, found "\xff"`)
	_, err = Parse("a b")
	require.ErrorContains(t, err, "found 'b'")

	long := strings.Repeat("a&", 40000) + "a"
	_, err = Parse(long)
	require.ErrorIs(t, err, ErrBudget)
	require.Less(t, len(err.Error()), 400)
	require.Contains(t, err.Error(), "(80001 bytes)")
	require.Contains(t, err.Error(), "offset 65536")

	bad := strings.Repeat("a&", 1000) + "a&&b"
	_, err = Parse(bad)
	require.Less(t, len(err.Error()), 400)
	require.Contains(t, err.Error(), `&&b" (2004 bytes): offset 2002: expected a feature name, found '&'`)
	require.True(t, strings.HasPrefix(err.Error(), `constraint ..."`))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, bad, se.Expr, "the error keeps the whole expression")
}
