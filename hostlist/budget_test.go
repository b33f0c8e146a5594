package hostlist

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireBudgetError checks that expanding expr fails on a budget, names
// the limit and where, and allocates only parse bookkeeping (a few slices
// grown by doubling).
func requireBudgetError(t *testing.T, expr string, b Budget, offset int, msg string) {
	t.Helper()
	var err error
	allocs := testing.AllocsPerRun(2, func() { _, err = ExpandBudget(expr, b) })
	require.ErrorIs(t, err, ErrBudget)
	var he *Error
	require.ErrorAs(t, err, &he)
	assert.Equal(t, offset, he.Pos.Offset)
	assert.Contains(t, he.Msg, msg)
	assert.Less(t, allocs, 80.0, "no allocation per host")
}

// Issue 11: a 1 KB input x…x[0-1023][0-1023] names 2^20 hosts, within the
// host limit, but 1 GB of text.
func TestExpandByteBudgetLongPrefixGrid(t *testing.T) {
	expr := strings.Repeat("x", 1024) + "[0-1023][0-1023]"
	requireBudgetError(t, expr, Budget{}, 0, "more than 33554432 bytes (byte budget)")
	n, err := Count(expr)
	require.NoError(t, err)
	assert.Equal(t, 1<<20, n, "the host count alone is within DefaultLimit")
}

// Issue 11: a 64 KB prefix + [0-65535] was a fatal out-of-memory.
func TestExpandByteBudget64KPrefix(t *testing.T) {
	expr := "ok[1-2]," + strings.Repeat("p", 64<<10) + "[0-65535]"
	requireBudgetError(t, expr, Budget{}, 8, "byte budget")
}

func TestExpandByteBudgetIsExact(t *testing.T) {
	// n1..n9 take 2 bytes each, n10 three: 21 bytes.
	names, err := ExpandBudget("n[1-10]", Budget{Bytes: 21})
	require.NoError(t, err)
	assert.Len(t, names, 10)
	requireBudgetError(t, "n[1-10]", Budget{Bytes: 20}, 0, "more than 20 bytes")
	requireBudgetError(t, "a,n[1-10]", Budget{Bytes: 21}, 2, "more than 21 bytes")
	requireBudgetError(t, "n[1-10]", Budget{Hosts: 9}, 0, "more than 9 hosts (host budget)")
}

// Issue 11: n + 10^7 x [1] overflowed the stack of the recursive expander.
// The expander is iterative, and MaxGroups stops such a name at the parse.
func TestExpandManyGroupsNoDeepStack(t *testing.T) {
	expr := "n" + strings.Repeat("[1]", 10_000_000)
	requireBudgetError(t, expr, Budget{}, 1+3*MaxGroups, "more than 1024 bracket groups (MaxGroups)")

	names, err := Expand("n" + strings.Repeat("[1]", MaxGroups))
	require.NoError(t, err)
	assert.Equal(t, []string{"n" + strings.Repeat("1", MaxGroups)}, names)
}

// The odometer expander agrees with a direct product over several groups,
// ranges of different widths and wraps that change the name's length.
func TestExpandOdometer(t *testing.T) {
	got, err := Expand("a[8-10,01]b[9-10]c")
	require.NoError(t, err)
	var want []string
	for _, x := range []string{"8", "9", "10", "01"} {
		for _, y := range []string{"9", "10"} {
			want = append(want, "a"+x+"b"+y+"c")
		}
	}
	assert.Equal(t, want, got)

	got, err = Expand("[0-1]" + strings.Repeat("[0-1]", 15))
	require.NoError(t, err)
	require.Len(t, got, 1<<16)
	assert.Equal(t, strings.Repeat("0", 16), got[0])
	assert.Equal(t, "0000000000000101", got[5])
	assert.Equal(t, strings.Repeat("1", 16), got[len(got)-1])
}

func TestBudgetErrorsAreTyped(t *testing.T) {
	_, err := Expand(strings.Repeat("x", 1024) + "[0-1023][0-1023]")
	assert.ErrorIs(t, err, ErrByteBudget)
	assert.NotErrorIs(t, err, ErrHostBudget)
	_, err = ExpandLimit("n[1-10]", 5)
	assert.ErrorIs(t, err, ErrHostBudget)
	assert.ErrorIs(t, err, ErrBudget, "both totals are budgets")

	_, err = Expand("tux[0-65536]")
	assert.True(t, errors.Is(err, ErrBudget), "MaxRangeSize is a budget")
	_, err = Expand("tux[5-3]")
	assert.False(t, errors.Is(err, ErrBudget), "a syntax error is not")
}
