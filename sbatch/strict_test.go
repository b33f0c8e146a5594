package sbatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Options sbatch refuses are errors naming the value as written.
func TestStrictOptions(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-N", "-1"}, `"-1" is not a count of nodes`},
		{[]string{"-N-1"}, `"-1" is not a count of nodes`},
		{[]string{"--nodes=2-"}, `"2-" is not a count of nodes`},
		{[]string{"-N", "0"}, `"0" is not a count of nodes`},
		{[]string{"--mem=4G", "--mem-per-cpu=1G"}, "--mem and --mem-per-cpu are mutually exclusive (--mem is given too)"},
		{[]string{"--mem-per-cpu", "1G", "-N1", "--mem", "4G"}, "(--mem-per-cpu is given too)"},
	}
	for _, c := range cases {
		_, err := Parse(c.args)
		require.Error(t, err, c.args)
		assert.Contains(t, err.Error(), c.want, c.args)
		assert.True(t, strings.HasPrefix(err.Error(), "sbatch: "), err.Error())
	}
	o, err := Parse([]string{"--mem=4G", "--mem=8G"}) // the same option twice: the last wins
	require.NoError(t, err)
	assert.Equal(t, int64(8192), o.MemoryMB)
}

// "sbatch:" starts only the errors about sbatch's own options; a
// caller's flags are its own.
func TestErrorPrefixOnlyForSbatchOptions(t *testing.T) {
	own := []Flag{{Long: "conf", Value: true, Set: func(string) error { return nil }},
		{Short: 'j', Long: "json", Set: func(string) error { return nil }}}
	cases := []struct {
		args    []string
		sbatch  bool
		message string
	}{
		{[]string{"--json=1"}, false, "--json takes no value"},
		{[]string{"--conf"}, false, "--conf needs a value"},
		{[]string{"-N", "x"}, true, `"x" is not a count of nodes`},
		{[]string{"--frob"}, true, "unknown option --frob"},
	}
	for _, c := range cases {
		_, err := Parse(c.args, own...)
		require.Error(t, err, c.args)
		assert.Contains(t, err.Error(), c.message)
		assert.Equal(t, c.sbatch, strings.HasPrefix(err.Error(), "sbatch: "), err.Error())
	}
	for _, args := range [][]string{{"--frob"}, {"--json=1"}, {"--conf"}, {"-N3"}} {
		_, err := ParseFlags(args, own...)
		require.Error(t, err, args)
		assert.False(t, strings.HasPrefix(err.Error(), "sbatch: "), err.Error())
	}
}
