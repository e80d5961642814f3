package postgres

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/result"
)

func TestClassifyServerErrors(t *testing.T) {
	var c Conn
	for code, want := range map[string]result.ErrorClass{
		"40001": result.ErrSerialization, "40P01": result.ErrDeadlock, "55P03": result.ErrBusy,
		"57014": result.ErrTimeout, "23505": result.ErrConstraint, "08006": result.ErrConnection,
		"57P01": result.ErrConnection, "53300": result.ErrThrottled, "42601": result.ErrOther,
	} {
		err := fmt.Errorf("statement: %w", &pgconn.PgError{Code: code})
		if got := c.Classify(err); got != want {
			t.Errorf("SQLSTATE %s: %s, want %s", code, got, want)
		}
	}
}
