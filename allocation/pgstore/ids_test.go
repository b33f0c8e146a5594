package pgstore

import (
	"context"
	"sync"
	"testing"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// Two pools (two controllers) drawing IDs concurrently never get the same
// one.
func TestJobIDsAreUniqueAcrossPools(t *testing.T) {
	dsn := freshDB(t)
	ctx := context.Background()
	var srcs []queue.IDSource
	for range 2 {
		s, err := Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(s.Close)
		srcs = append(srcs, s.JobIDs())
	}
	var mu sync.Mutex
	seen := map[queue.JobID]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func(src queue.IDSource) {
			defer wg.Done()
			for range 50 {
				id, err := src.NextJobID(ctx)
				mu.Lock()
				if err != nil || seen[id] {
					t.Errorf("ID %d handed out twice, or %v", id, err)
				}
				seen[id] = true
				mu.Unlock()
			}
		}(srcs[g%2])
	}
	wg.Wait()
	require.Len(t, seen, 400)
}
