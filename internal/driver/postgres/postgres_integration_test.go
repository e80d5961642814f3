package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	pgdrv "github.com/fairbench/fairbench/internal/driver/postgres"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func connect(t *testing.T, url, mode string) *pgdrv.Conn {
	t.Helper()
	c, err := (pgdrv.Driver{}).Connect(context.Background(), driver.Target{Name: "t", URL: url}, driver.Options{QueryMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.(*pgdrv.Conn)
}

// Statements give the same answers in every query mode, whichever path runs
// them: pgconn with text parameters (extended, prepared) or pgx (simple, and
// argument types the text path does not take).
func TestStatementsAgreeInEveryQueryMode(t *testing.T) {
	url := testenv.FreshPostgres(t)
	ctx := context.Background()
	setup := connect(t, url, "simple")
	for _, q := range []string{
		"CREATE TABLE kv (k int8 PRIMARY KEY, v int4, s text)",
		"INSERT INTO kv VALUES (1, 10, 'one'), (2, NULL, 'two'), (3, -7, NULL)",
	} {
		if err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	type query struct {
		sql  string
		args []any
		want int64
		err  error
	}
	queries := []query{
		{"SELECT v FROM kv WHERE k = $1", []any{int64(1)}, 10, nil},
		{"SELECT v FROM kv WHERE k = $1", []any{int64(3)}, -7, nil},
		{"SELECT v FROM kv WHERE k = $1", []any{int64(2)}, 0, nil}, // NULL reads as 0
		{"SELECT v FROM kv WHERE k = $1", []any{int64(9)}, 0, pgx.ErrNoRows},
		{"SELECT k FROM kv WHERE s = $1", []any{"two"}, 2, nil},
		{"SELECT count(*) FROM kv WHERE s IS NOT DISTINCT FROM $1", []any{nil}, 1, nil},
		{"SELECT $1::int8 + $2", []any{int64(-9223372036854775807), int(-1)}, -9223372036854775808, nil},
		{"SELECT $1::int4 * 2", []any{int32(21)}, 42, nil},
		{"SELECT $1::float8::int8", []any{float64(3)}, 3, nil}, // a type only pgx's path takes
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		c := connect(t, url, mode)
		for _, q := range queries {
			s, err := c.Prepare(ctx, q.sql)
			if err != nil {
				t.Fatalf("%s: prepare %s: %v", mode, q.sql, err)
			}
			for i := 0; i < 2; i++ { // the second run reuses the statement's buffers
				got, err := s.QueryInt64(ctx, q.args...)
				if !errors.Is(err, q.err) || (q.err == nil && err != nil) || got != q.want {
					t.Fatalf("%s: %s %v = %d, %v; want %d, %v", mode, q.sql, q.args, got, err, q.want, q.err)
				}
			}
		}
		up, err := c.Prepare(ctx, "UPDATE kv SET v = v + $1 WHERE k = $2")
		if err != nil {
			t.Fatal(err)
		}
		if err := up.Exec(ctx, int64(5), int64(1)); err != nil {
			t.Fatalf("%s: update: %v", mode, err)
		}
		dup, err := c.Prepare(ctx, "INSERT INTO kv (k) VALUES ($1)")
		if err != nil {
			t.Fatal(err)
		}
		err = dup.Exec(ctx, int64(1))
		if cl := c.Classify(err); cl != result.ErrConstraint {
			t.Fatalf("%s: duplicate key classified %s (%v)", mode, cl, err)
		}
		// The connection is usable after a failed statement.
		if err := up.Exec(ctx, int64(-5), int64(1)); err != nil {
			t.Fatalf("%s: update after error: %v", mode, err)
		}
	}
	if v, err := setup.QueryInt64(ctx, "SELECT v FROM kv WHERE k = 1"); err != nil || v != 10 {
		t.Fatalf("after +5 and -5 in each mode, v = %d (%v), want 10", v, err)
	}
}

// Interrupt wakes a statement blocked on the connection, on blocking sockets and
// on Go's netpoller alike; the runner relies on it to stop a hung client while
// statements run under a context the driver never sees cancelled.
func TestInterruptWakesABlockedStatement(t *testing.T) {
	url := testenv.PostgresURL(t)
	for _, netMode := range []string{"", "netpoll"} {
		t.Run("net="+netMode, func(t *testing.T) {
			t.Setenv("FAIRBENCH_NET", netMode)
			c := connect(t, url, "prepared")
			s, err := c.Prepare(context.Background(), "SELECT pg_sleep($1)::text::int8")
			if err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(200*time.Millisecond, c.Interrupt)
			start := time.Now()
			_, err = s.QueryInt64(context.WithoutCancel(context.Background()), int64(10))
			if err == nil || time.Since(start) > 5*time.Second {
				t.Fatalf("statement not interrupted: %v after %s", err, time.Since(start))
			}
			if cl := c.Classify(err); cl != result.ErrConnection && cl != result.ErrTimeout {
				t.Fatalf("interrupted statement classified %s (%v)", cl, err)
			}
		})
	}
}
