package pgstore

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Target names the database a DSN reaches — host, port and database, as
// the driver reads the DSN and the PG* environment variables — and never
// its user or password, so a server may log it. A DSN the driver cannot
// read is not quoted either.
func Target(dsn string) string {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "(a DSN the driver cannot read)"
	}
	return fmt.Sprintf("database %q on %s:%d", cfg.Database, cfg.Host, cfg.Port)
}
