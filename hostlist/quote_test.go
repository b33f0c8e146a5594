package hostlist

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An error names a character by its whole UTF-8 sequence, and quotes a
// long expression around the offset at fault: a 1 MB prefix before a
// range over budget made a 1 MB message.
func TestErrorMessage(t *testing.T) {
	_, err := Expand("n[1-ä]")
	require.EqualError(t, err, `hostlist "n[1-ä]": offset 4: expected a number, found 'ä'`)
	_, err = Expand("n[1é]")
	require.EqualError(t, err, `hostlist "n[1é]": offset 3: unexpected 'é' in a range`)

	long := strings.Repeat("x", 1<<20) + "[0-65535]"
	_, err = Expand(long)
	require.ErrorIs(t, err, ErrBudget)
	require.Less(t, len(err.Error()), 400)
	require.Contains(t, err.Error(), "(1048585 bytes)")
	var he *Error
	require.ErrorAs(t, err, &he)
	require.Equal(t, long, he.Expr, "the error keeps the whole expression")

	_, err = Expand(strings.Repeat("n1,", 100) + "n[2-1]")
	require.Contains(t, err.Error(), `,n[2-1]" (306 bytes): offset 302: range 2-1 is descending`)
	require.True(t, strings.HasPrefix(err.Error(), `hostlist ..."`))
}
