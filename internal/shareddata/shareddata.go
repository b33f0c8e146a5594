// Package shareddata finds the real workloads and Slurm configurations that
// live beside the repository in ../shared/data, for tests and benchmarks.
// They are never copied into the repository; a test that needs them skips
// with a message when they are absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides where the data folder is.
const EnvVar = "HPCSCHED_SHARED_DATA"

// Dir returns the data folder (…/shared/data), or "" when it cannot be
// found. It looks at $HPCSCHED_SHARED_DATA, then walks up from the working
// directory to the module root and looks beside it.
func Dir() string {
	if d := os.Getenv(EnvVar); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Require returns the sub-folder sub of the data folder, or skips tb with a
// message saying where the data was looked for.
func Require(tb testing.TB, sub string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared data not found: put the shared folder beside the repository or set %s", EnvVar)
	}
	p := filepath.Join(d, sub)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data %s not found: %v", p, err)
	}
	return p
}
