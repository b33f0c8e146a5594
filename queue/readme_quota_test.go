package queue

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's quota plugin is the one ExampleReservePlugin_quota runs,
// character for character, so the README shows tested code.
func TestReadmeQuotaIsTheTestedExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if os.IsNotExist(err) {
		t.Skip("no README.md")
	}
	require.NoError(t, err)
	example, err := os.ReadFile("example_quota_test.go")
	require.NoError(t, err)
	_, region, ok := strings.Cut(string(example), "// README: quota begin\n")
	require.True(t, ok)
	region, _, ok = strings.Cut(region, "\n// README: quota end")
	require.True(t, ok)
	require.Contains(t, string(readme), "```go test\n"+strings.TrimRight(region, "\n")+"\n```\n",
		"README.md's quota block differs from example_quota_test.go")
}
