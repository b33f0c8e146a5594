package httpapi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

// An audit log cut at any byte (kill -9 or a full disk during Append)
// opens again: the torn last record is cut off, the whole ones before it
// are kept, and the next record follows them. A server with --audit used
// to refuse to start after such a crash.
func TestAuditLogCutAnywhereOpensAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit")
	a, err := OpenAuditLog(path)
	require.NoError(t, err)
	for _, body := range []string{`{"gname":"lab"}`, `{"amount":5}`, `not json`} {
		require.NoError(t, a.Append(AuditRecord{Time: t0, Method: "POST", Path: "/x", Body: auditBody([]byte(body)), Status: 201}))
	}
	require.NoError(t, a.Close())
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	for cut := 0; cut <= len(whole); cut++ {
		cutPath := filepath.Join(dir, "cut")
		require.NoError(t, os.WriteFile(cutPath, whole[:cut], 0o600))
		kept := bytes.Count(whole[:cut], []byte("\n"))
		c, err := OpenAuditLog(cutPath)
		require.NoError(t, err, "cut at %d", cut)
		recs, err := c.Records(0, 10)
		require.NoError(t, err)
		require.Len(t, recs, kept, "cut at %d", cut)
		require.NoError(t, c.Append(AuditRecord{Time: t0, Method: "DELETE", Path: "/y", Status: 204}))
		recs, err = c.Records(0, 10)
		require.NoError(t, err)
		require.Len(t, recs, kept+1)
		require.Equal(t, int64(kept+1), recs[kept].Seq)
		require.NoError(t, c.Close())
	}
	// A record changed in the middle is not a torn write: refused, naming it.
	changed := bytes.Replace(whole, []byte(`"seq":2`), []byte(`"seq":"2"`), 1)
	require.NoError(t, os.WriteFile(path, changed, 0o600))
	_, err = OpenAuditLog(path)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.Contains(t, err.Error(), "line 2")
}
