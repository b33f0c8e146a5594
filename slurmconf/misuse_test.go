package slurmconf

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/require"
)

// A GRES count written as a number that does not fit, or a negative one,
// is an error at its place: it used to be read as the GPU's type, counted
// once (gpu:-1 was one GPU of type "-1").
func TestGresCountOutOfRange(t *testing.T) {
	for _, g := range []string{"gpu:-1", "gpu:99999999999999999999", "gpu:9999999999T", "gpu:8388608T", "gpu:k80:9999999999999999999", "gpu:k80:-2"} {
		_, err := Parse(strings.NewReader("NodeName=n1 CPUs=1 Gres=" + g + "\n"))
		require.Error(t, err, g)
		require.ErrorContains(t, err, "negative or more than", g)
		pos, ok := position.Of(err)
		require.True(t, ok, g)
		require.Equal(t, 1, pos.Line, g)
		require.Equal(t, 25, pos.Column, g)
	}
	for g, want := range map[string]Gres{
		"gpu:8388607T": {Name: "gpu", Count: 8388607 << 40},
		"gpu:2080ti":   {Name: "gpu", Type: "2080ti", Count: 1},
		"gpu:2080":     {Name: "gpu", Count: 2080},
		"gpu:a100:0":   {Name: "gpu", Type: "a100"},
	} {
		cfg, err := Parse(strings.NewReader("NodeName=n1 CPUs=1 Gres=" + g + "\n"))
		require.NoError(t, err, g)
		require.Equal(t, []Gres{want}, cfg.Nodes[0].Gres, g)
	}
}

// A negative time value says so, and a bad day count says which value
// it was in.
func TestParseDurationSaysWhatIsWrong(t *testing.T) {
	_, err := ParseDuration("-5")
	require.ErrorContains(t, err, `time value "-5" is negative`)
	_, err = ParseDuration("99999999999999-00:00:00")
	require.ErrorContains(t, err, `time value "99999999999999-00:00:00": days:`)
	d, err := ParseDuration("-1")
	require.NoError(t, err)
	require.Equal(t, Unlimited, d)
	_, err = Parse(strings.NewReader("PartitionName=p MaxTime=-5\n"))
	require.ErrorContains(t, err, "1:25: MaxTime: time value \"-5\" is negative")
	var pe *Error
	require.True(t, errors.As(err, &pe))
}

// A node State Slurm does not take is an error at its place: a mistyped
// DRAIN used to leave the node up. The states it takes are kept upper
// case, joined with '+'.
func TestNodeStateWords(t *testing.T) {
	for _, st := range []string{"DRIAN", "down+drian", "UP", "", "DOWN+", "ALLOCATED"} {
		_, err := Parse(strings.NewReader("NodeName=n1 CPUs=1 State=" + st + "\n"))
		require.Error(t, err, st)
		require.ErrorContains(t, err, "unknown node State", st)
		pos, ok := position.Of(err)
		require.True(t, ok, st)
		require.Equal(t, 1, pos.Line, st)
		require.Equal(t, 26, pos.Column, st)
	}
	for st, want := range map[string]string{"unknown": "UNKNOWN", "Cloud": "CLOUD", "FAIL": "FAIL", "failing": "FAILING",
		"DOWN+DRAIN": "DOWN+DRAIN", "future": "FUTURE", "IDLE+DRAIN": "IDLE+DRAIN"} {
		cfg, err := Parse(strings.NewReader("NodeName=n1 CPUs=1 State=" + st + "\n"))
		require.NoError(t, err, st)
		require.Equal(t, want, cfg.Nodes[0].State, st)
	}
}
