package hostlist

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seq(prefix string, lo, hi int, width int, suffix string) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, fmt.Sprintf("%s%0*d%s", prefix, width, i, suffix))
	}
	return out
}

func TestExpand(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{"rack[0-3]", []string{"rack0", "rack1", "rack2", "rack3"}},
		{"rack[0-1]_blade[2,3]", []string{"rack0_blade2", "rack0_blade3", "rack1_blade2", "rack1_blade3"}},
		{"row[0,1]_rack[2-3]_blade[4,5]", []string{
			"row0_rack2_blade4", "row0_rack2_blade5", "row0_rack3_blade4", "row0_rack3_blade5",
			"row1_rack2_blade4", "row1_rack2_blade5", "row1_rack3_blade4", "row1_rack3_blade5"}},
		{"host[1-3],host5", []string{"host1", "host2", "host3", "host5"}},
		{"tux[0-5,12,20-25]", append(append(seq("tux", 0, 5, 1, ""), "tux12"), seq("tux", 20, 25, 1, "")...)},
		{"linux[0000-1023]", seq("linux", 0, 1023, 4, "")},
		{"tux[001-010]", seq("tux", 1, 10, 3, "")},
		{"tux[9-10]", []string{"tux9", "tux10"}},
		{"tux[1-010]", seq("tux", 1, 10, 1, "")},
		{"tux[1-3]-ib", []string{"tux1-ib", "tux2-ib", "tux3-ib"}},
		{"a b\tc", []string{"a", "b", "c"}},
		{"n1,,n2,", []string{"n1", "n2"}},
		{"[1-2]", []string{"1", "2"}},
		{"n[3,1,3]", []string{"n3", "n1", "n3"}},
		{"", nil},
		{" , ", nil},
		{"circe-n[017-018,021-023]", []string{"circe-n017", "circe-n018", "circe-n021", "circe-n022", "circe-n023"}},
		{"/dev/nvidia[0,2-3]", []string{"/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia3"}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := Expand(tt.expr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			n, err := Count(tt.expr)
			require.NoError(t, err)
			assert.Equal(t, len(tt.want), n)
		})
	}
}

func TestExpandWidestRange(t *testing.T) {
	got, err := Expand("tux[0-65535]")
	require.NoError(t, err)
	require.Len(t, got, 65536)
	assert.Equal(t, "tux0", got[0])
	assert.Equal(t, "tux65535", got[65535])
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		expr   string
		offset int
		msg    string
	}{
		{"tux[5-3]", 4, "descending"},
		{"tux[1-10:2]", 8, "stepping"},
		{"tux[1--3]", 6, "expected a number"},
		{"tux[1-3", 3, "never closed"},
		{"tux[", 3, "never closed"},
		{"tux[]", 4, "empty range"},
		{"tux[1,]", 6, "empty range"},
		{"tux[,1]", 4, "empty range"},
		{"tux[0-65536]", 4, "more than 65536"},
		{"tux1]", 4, "without a matching"},
		{"tux[1[2]]", 5, "nested"},
		{"tux[a]", 4, "found 'a'"},
		{"tux[1 2]", 5, "unexpected ' '"},
		{"tux[1-]", 6, "expected a number"},
		{"n[1234567890123456789]", 2, "more than 18 digits"},
		{"ok1,bad[2-1]", 8, "descending"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := Expand(tt.expr)
			var he *Error
			require.True(t, errors.As(err, &he), "want *Error, got %v", err)
			assert.Equal(t, tt.offset, he.Pos.Offset, "offset: %v", err)
			assert.Contains(t, he.Msg, tt.msg)
			assert.Equal(t, tt.expr, he.Expr)
			_, cerr := Count(tt.expr)
			assert.Error(t, cerr)
		})
	}
}

func TestLimit(t *testing.T) {
	for _, expr := range []string{"n[0-999999999]", "a[0-9999]b[0-9999]", "n[0-65535],m[0-65535],o[0-65535]"} {
		t.Run(expr, func(t *testing.T) {
			allocs := testing.AllocsPerRun(5, func() {
				_, err := ExpandLimit(expr, 100000)
				require.Error(t, err)
			})
			// only the parse's small bookkeeping, never one slot per host
			assert.Less(t, allocs, 30.0)
		})
	}
	_, err := Expand("a[0-9999]b[0-9999]")
	var he *Error
	require.ErrorAs(t, err, &he)
	assert.Contains(t, he.Msg, "more than 1048576 hosts")

	got, err := ExpandLimit("n[1-4]", 4)
	require.NoError(t, err)
	assert.Len(t, got, 4)
	_, err = ExpandLimit("n[1-4],m1", 4)
	assert.Error(t, err)

	n, err := Count("a[0-9999]b[0-9999]")
	require.NoError(t, err)
	assert.Equal(t, 100000000, n)
}

func TestCompress(t *testing.T) {
	tests := []struct {
		hosts []string
		want  string
	}{
		{[]string{"node01", "node02", "node03"}, "node[01-03]"},
		{[]string{"b1", "b2", "b3", "c1", "d1", "d2", "d3", "d4", "d5", "e1"}, "b[1-3],c1,d[1-5],e1"},
		{[]string{"tux9", "tux10"}, "tux[9-10]"},
		{[]string{"tux1", "tux01"}, "tux[1,01]"},
		{[]string{"tux09", "tux10", "tux11"}, "tux[09-11]"},
		{[]string{"tux9", "tux010"}, "tux[9,010]"},
		{[]string{"tux3", "tux1", "tux2"}, "tux[3,1-2]"},
		{[]string{"tux1-ib", "tux2-ib", "tux3-ib"}, "tux[1-3]-ib"},
		{[]string{"login", "n1", "login"}, "login,n1,login"},
		{[]string{"circe-n017", "circe-n018", "circe-n021"}, "circe-n[017-018,021]"},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := Compress(tt.hosts)
			assert.Equal(t, tt.want, got)
			back, err := Expand(got)
			require.NoError(t, err)
			assert.Equal(t, tt.hosts, back)
		})
	}
}

func TestCompressSplitsHugeRanges(t *testing.T) {
	hosts := seq("n", 0, MaxRangeSize+10, 1, "")
	expr := Compress(hosts)
	assert.True(t, strings.HasPrefix(expr, "n[0-65535,65536-65546]"), expr)
	back, err := Expand(expr)
	require.NoError(t, err)
	assert.Equal(t, hosts, back)
}

func TestCompressSorted(t *testing.T) {
	in := []string{"tux10", "b2", "tux9", "b1", "a", "tux01"}
	assert.Equal(t, "a,b[1-2],tux[01,9-10]", CompressSorted(in))
	assert.Equal(t, []string{"tux10", "b2", "tux9", "b1", "a", "tux01"}, in, "input left alone")
}

// randomHosts draws names from the characters Compress can represent, with
// deliberately clustered numbers so ranges form.
func randomHosts(r *rand.Rand) []string {
	prefixes := []string{"n", "tux", "rack1_blade", "a-b.c", "", "x0y"}
	suffixes := []string{"", "-ib", "z"}
	hosts := make([]string, r.IntN(40))
	for i := range hosts {
		p := prefixes[r.IntN(len(prefixes))]
		s := suffixes[r.IntN(len(suffixes))]
		switch r.IntN(5) {
		case 0:
			hosts[i] = p + "node" + s
		default:
			w := r.IntN(4)
			hosts[i] = fmt.Sprintf("%s%0*d%s", p, w, r.IntN(30), s)
		}
		if hosts[i] == "" {
			hosts[i] = "empty"
		}
	}
	return hosts
}

func TestCompressRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		hosts := randomHosts(r)
		expr := Compress(hosts)
		back, err := Expand(expr)
		require.NoError(t, err, "hosts %q expr %q", hosts, expr)
		if len(hosts) == 0 {
			assert.Empty(t, back)
			continue
		}
		require.Equal(t, hosts, back, "expr %q", expr)
		sorted := CompressSorted(hosts)
		backSorted, err := Expand(sorted)
		require.NoError(t, err)
		assert.ElementsMatch(t, hosts, backSorted)
	}
}

// CompressFunc reads names through a function, within 0..n-1 only, and
// writes what Compress writes for the same names.
func TestCompressFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		hosts := randomHosts(r)
		padded := append(append([]string{"before"}, hosts...), "after")
		got := CompressFunc(len(hosts), func(k int) string {
			require.True(t, k >= 0 && k < len(hosts), "name(%d) of %d", k, len(hosts))
			return padded[k+1]
		})
		assert.Equal(t, Compress(hosts), got)
	}
}
