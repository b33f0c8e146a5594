package pgstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A DSN without pool_max_conns gets DefaultPoolSize connections, not
// pgxpool's 4-or-CPUs; one that sets it keeps its own.
func TestOpenPoolSize(t *testing.T) {
	dsn := freshDB(t)
	for _, tc := range []struct {
		dsn  string
		want int32
	}{
		{dsn, DefaultPoolSize},
		{withPoolSize(dsn, 3), 3},
	} {
		s, err := Open(context.Background(), tc.dsn)
		require.NoError(t, err)
		assert.Equal(t, tc.want, s.pool.Config().MaxConns, tc.dsn)
		s.Close()
	}
}
