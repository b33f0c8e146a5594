package placementtest_test

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
