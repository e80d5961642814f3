package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	pgdrv "github.com/fairbench/fairbench/internal/driver/postgres"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func connect(t *testing.T, url, mode string) *pgdrv.Conn {
	t.Helper()
	cl, err := (pgdrv.Driver{}).Open(context.Background(), driver.Target{Name: "t", URL: url}, driver.Options{QueryMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	c, err := cl.Session(context.Background())
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
		{"SELECT count(*) FROM kv WHERE s = $1 OR s = $2", []any{"o'ne", "two"}, 1, nil}, // a quote in a string
		{"SELECT 1 - $1", []any{int64(-1)}, 2, nil},                                      // not the comment "1 --1" in the simple mode
		{"SELECT lpad($1::text, 100000, '0')", []any{int64(5)}, 5, nil},                  // "000…05": a row bigger than the read buffer
		{"SELECT $1::float8::int8", []any{float64(3)}, 3, nil},
		{"SELECT extract(year FROM $1::timestamptz)::int8", []any{time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}, 2024, nil}, // a type only pgx's path takes
	}
	// Multiplexed: the statements are prepared through pgx, then the connection
	// is taken over for an event loop (as the runner does) and they run on the
	// wire path, which must answer exactly as pgx does.
	for _, multiplexed := range []bool{false, true} {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			mode := mode
			if multiplexed {
				mode += " multiplexed"
			}
			c := connect(t, url, strings.TrimSuffix(mode, " multiplexed"))
			stmts := make([]driver.Stmt, len(queries))
			for i, q := range queries {
				s, err := c.Prepare(ctx, q.sql)
				if err != nil {
					t.Fatalf("%s: prepare %s: %v", mode, q.sql, err)
				}
				stmts[i] = s
			}
			if multiplexed {
				if _, err := fastpath.Multiplexer(c).Multiplex(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for i, q := range queries {
				for rep := 0; rep < 2; rep++ { // the second run reuses the statement's buffers
					got, err := stmts[i].QueryInt64(ctx, q.args...)
					if _, isTime := q.args[0].(time.Time); isTime && multiplexed {
						if err == nil || !strings.Contains(err.Error(), "not supported") {
							t.Fatalf("%s: a time argument gave %d, %v; want a not-supported error", mode, got, err)
						}
						continue
					}
					if !errors.Is(err, q.err) || (q.err == nil && err != nil) || got != q.want {
						t.Fatalf("%s: %s %v = %d, %v; want %d, %v", mode, q.sql, q.args, got, err, q.want, q.err)
					}
				}
			}
			checkUpdates(t, c, mode)
			checkLongStatements(t, c, mode)
			c.Close(ctx)
		}
	}
	if v, err := setup.QueryInt64(ctx, "SELECT v FROM kv WHERE k = 1"); err != nil || v != 10 {
		t.Fatalf("after +5 and -5 in each mode, v = %d (%v), want 10", v, err)
	}
}

// checkUpdates runs an update, a failing insert and the update again: the
// failure is classified, the connection stays usable, and v of row 1 ends as
// it started.
func checkUpdates(t *testing.T, c driver.SQL, mode string) {
	t.Helper()
	ctx := context.Background()
	{
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
}

// checkLongStatements prepares two statements whose first 63 characters agree
// (the server cuts names there), after the ones prepared before: each keeps its
// own answer.
func checkLongStatements(t *testing.T, c driver.SQL, mode string) {
	t.Helper()
	ctx := context.Background()
	prefix := "SELECT /* " + strings.Repeat("a long comment ", 6) + "*/ "
	for _, q := range []struct {
		sql  string
		want int64
	}{{prefix + "$1::int8", 5}, {prefix + "-$1::int8", -5}} {
		s, err := c.Prepare(ctx, q.sql)
		if err != nil {
			t.Fatalf("%s: prepare %s: %v", mode, q.sql, err)
		}
		if got, err := s.QueryInt64(ctx, int64(5)); err != nil || got != q.want {
			t.Fatalf("%s: %s with 5 = %d, %v; want %d", mode, q.sql, got, err, q.want)
		}
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

// A real server's environment gives its cache (shared_buffers, in bytes) and
// names its installation-only settings: what the working-set and
// configuration checks read, without knowing PostgreSQL.
func TestEnvironmentReportsTheCache(t *testing.T) {
	db, err := connect(t, testenv.PostgresURL(t), "").Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	db = db.WithEngineFacts()
	if b, name := db.Cache(); b < 128<<10 || name != "shared_buffers" {
		t.Fatalf("cache %d bytes of %q from settings %v", b, name, db.Settings)
	}
	if !db.InstallationOnly("data_directory") || db.InstallationOnly("shared_buffers") {
		t.Fatalf("installation-only settings %v", db.InstallationSettings)
	}
}

// Through a real PgBouncer the environment names it and its version, from
// its console's SHOW VERSION, with how it was found; straight to PostgreSQL
// it records no pooler and does not fail on the questions a pooler would
// answer.
func TestEnvironmentRecordsAConnectionPooler(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
		want string
	}{
		{"PgBouncer", testenv.PgBouncerURL, "PgBouncer"},
		{"plain PostgreSQL", testenv.PostgresURL, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := connect(t, tc.url(t), "").Environment(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if db.Pooler != nil {
					t.Fatalf("pooler %+v recorded on a plain PostgreSQL", *db.Pooler)
				}
				return
			}
			p := db.Pooler
			if p == nil || p.Name != tc.want || !strings.HasPrefix(p.Version, "1.") || !strings.Contains(p.Evidence, "SHOW VERSION") {
				t.Fatalf("pooler %+v, want %s 1.x found by SHOW VERSION", p, tc.want)
			}
			if db.Engine != "postgresql" || db.ServerVersion == "" {
				t.Fatalf("through the pooler the server is still described: engine %q version %q", db.Engine, db.ServerVersion)
			}
		})
	}
}
