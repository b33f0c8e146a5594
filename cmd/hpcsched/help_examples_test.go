package main

import (
	"os"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/sbatch"
	"github.com/stretchr/testify/require"
)

// Every example command a help text shows runs as written from the
// repository's root, and exits 0, or 1 where its comment says "exit 1".
// Examples that read ../shared skip when it is absent.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs replays")
	}
	t.Chdir("../..")
	var examples []string
	for _, args := range [][]string{{"simulate"}, {"explain"}, {"check"}, {"auction"}} {
		code, out, _ := runCmd(t, append(args, "--help")...)
		require.Equal(t, 0, code, args)
		found := false
		for _, line := range strings.Split(out, "\n") {
			if cmd, ok := strings.CutPrefix(line, "  hpcsched "); ok {
				examples, found = append(examples, cmd), true
			}
		}
		require.True(t, found, "%v --help shows no example", args)
	}
	for _, line := range examples {
		t.Run(line, func(t *testing.T) {
			text, comment, _ := strings.Cut(line, "#")
			if strings.Contains(text, "../shared") {
				if _, err := os.Stat("../shared/data"); err != nil {
					t.Skip("../shared is absent")
				}
			}
			args, err := sbatch.Split(text)
			require.NoError(t, err)
			want := 0
			if strings.Contains(comment, "exit 1") {
				want = 1
			}
			code, _, errOut := runCmd(t, args...)
			require.Equal(t, want, code, "%s\n%s", line, errOut)
		})
	}
}
