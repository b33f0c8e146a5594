package pgstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Only the aborts PostgreSQL asks clients to retry are run again: a
// deadlock's victim and a serialization failure, however wrapped; not a
// constraint's refusal, another error or none.
func TestTransientErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: deadlockDetected}, true},
		{fmt.Errorf("complete: %w", &pgconn.PgError{Code: serializationFailure}), true},
		{&pgconn.PgError{Code: uniqueViolation}, false},
		{&pgconn.PgError{Code: "40P02"}, false},
		{errors.New("40P01"), false},
		{nil, false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
