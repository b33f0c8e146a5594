package testseed

import (
	"os"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Draw logs and whether it failed.
type recorder struct {
	testing.TB
	logs   []string
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, format)
}
func (r *recorder) Fatalf(format string, args ...any) { r.failed = true }

func TestDrawReplaysTheGivenSeed(t *testing.T) {
	t.Setenv(EnvVar, "10195102979499073369")
	r := &recorder{TB: t}
	if got := Draw(r); got != 10195102979499073369 || r.failed {
		t.Fatalf("Draw = %d (failed %v), want the seed given", got, r.failed)
	}
	if len(r.logs) != 1 || !strings.Contains(r.logs[0], "replay with") {
		t.Fatalf("logged %q, want the seed and how to replay it", r.logs)
	}
}

func TestDrawRefusesAMalformedSeed(t *testing.T) {
	for _, v := range []string{"", "-1", "0x10", "18446744073709551616", "seed 5"} {
		t.Setenv(EnvVar, v)
		r := &recorder{TB: t}
		Draw(r)
		if !r.failed {
			t.Errorf("%s=%q was taken", EnvVar, v)
		}
	}
}

func TestDrawDrawsFreshSeeds(t *testing.T) {
	t.Setenv(EnvVar, "") // restored after the test
	os.Unsetenv(EnvVar)
	seen := map[uint64]bool{}
	for range 8 {
		seen[Draw(&recorder{TB: t})] = true
	}
	if len(seen) < 2 {
		t.Fatalf("eight draws gave %d distinct seeds", len(seen))
	}
}
