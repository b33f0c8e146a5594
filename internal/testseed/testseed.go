// Package testseed draws the seeds of the project's random tests, so that
// a failure seen once can be replayed: each test draws a fresh seed and
// logs it, and HPCSCHED_TEST_SEED=N replays seed N in every test of the
// run (pick the failing one with go test -run).
package testseed

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// EnvVar names the environment variable that fixes the seed.
const EnvVar = "HPCSCHED_TEST_SEED"

// Draw returns the seed for tb's random inputs: the one EnvVar gives, or a
// fresh one. It logs the seed with how to replay it, and fails tb when
// EnvVar is set to something other than an unsigned integer.
func Draw(tb testing.TB) uint64 {
	tb.Helper()
	seed := rand.Uint64()
	if v, ok := os.LookupEnv(EnvVar); ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			tb.Fatalf("%s=%q: want the unsigned integer a failed run logged: %v", EnvVar, v, err)
		}
		seed = n
	}
	tb.Logf("seed %d (replay with %s=%d)", seed, EnvVar, seed)
	return seed
}
