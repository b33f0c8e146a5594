package main

import (
	"context"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/pgstore"
)

// openAllocStore opens the ledger file or connects to PostgreSQL (and
// applies the schema migrations).
func openAllocStore(ctx context.Context, path, dsn string) (allocation.Store, func(), error) {
	if dsn != "" {
		s, err := pgstore.Open(ctx, dsn)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
	s, err := allocation.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	return s, func() { s.Close() }, nil
}
