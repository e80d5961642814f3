package testenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// RowsQuery reads the table CreateRowsTable fills: several typed columns
// (integer, decimal twice, text, timestamp, boolean, a nullable text) and a
// parameter, as a TPC-C transaction reads.
const RowsQuery = "SELECT id, amount, amount, name, at, flag, note FROM fb_rows WHERE id >= $1 ORDER BY id"

// CreateRowsTable creates and fills fb_rows in s's dialect.
func CreateRowsTable(t testing.TB, s driver.SQL) {
	t.Helper()
	ctx := context.Background()
	create := map[string]string{
		"postgres": "CREATE TABLE fb_rows (id int8 PRIMARY KEY, amount numeric(12,2), name text, at timestamp, flag boolean, note text)",
		"mysql":    "CREATE TABLE fb_rows (id BIGINT PRIMARY KEY, amount DECIMAL(12,2), name VARCHAR(20), at DATETIME(6), flag BOOLEAN, note TEXT)",
		"sqlite":   "CREATE TABLE fb_rows (id INTEGER PRIMARY KEY, amount DECIMAL(12,2), name TEXT, at DATETIME, flag BOOLEAN, note TEXT)",
	}[s.Dialect()]
	for _, q := range []string{
		"DROP TABLE IF EXISTS fb_rows",
		create,
		"INSERT INTO fb_rows VALUES (1, 12.50, 'one', '2024-01-02 03:04:05', true, NULL)",
		"INSERT INTO fb_rows VALUES (2, -0.01, 'two', '2024-02-03 04:05:06.5', false, 'x')",
		"INSERT INTO fb_rows VALUES (3, 123456.78, 'three', '2025-12-31 23:59:59', true, NULL)",
	} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// CheckRows runs RowsQuery through query (with the argument 1) and checks
// every row and column; decimals are the amounts as the engine writes them
// exactly (SQLite, which has no decimal type, shortens them). Then it checks
// that NULL into a typed destination is an error naming the column, that a
// failing statement reports its error, and that s still answers after both.
func CheckRows(t testing.TB, what string, s driver.SQL, query func(sql string, args ...any) (driver.Rows, error), decimals []string) {
	t.Helper()
	want := []struct {
		id     int
		amount float64
		name   string
		at     time.Time
		flag   bool
		note   any
	}{
		{1, 12.50, "one", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), true, nil},
		{2, -0.01, "two", time.Date(2024, 2, 3, 4, 5, 6, 500_000_000, time.UTC), false, "x"},
		{3, 123456.78, "three", time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC), true, nil},
	}
	rows, err := query(RowsQuery, int64(1))
	if err != nil {
		t.Fatalf("%s: query: %v", what, err)
	}
	n := 0
	for rows.Next() {
		if n >= len(want) {
			t.Fatalf("%s: more than %d rows", what, len(want))
		}
		var (
			id     int
			amount float64
			exact  string
			name   []byte
			at     time.Time
			flag   bool
			note   any
		)
		if err := rows.Scan(&id, &amount, &exact, &name, &at, &flag, &note); err != nil {
			t.Fatalf("%s: row %d: %v", what, n+1, err)
		}
		w := want[n]
		if id != w.id || amount != w.amount || exact != decimals[n] || string(name) != w.name || !at.Equal(w.at) || flag != w.flag || note != w.note {
			t.Errorf("%s: row %d = %v %v %q %q %v %v %#v; want %v %v %q %q %v %v %#v", what, n+1,
				id, amount, exact, name, at, flag, note, w.id, w.amount, decimals[n], w.name, w.at, w.flag, w.note)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: rows: %v", what, err)
	}
	if err := rows.Close(); err != nil {
		t.Fatalf("%s: close: %v", what, err)
	}
	if n != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, n, len(want))
	}

	// Other destinations of the same values, and NULL into a typed one.
	rows, err = query(RowsQuery, int64(1))
	if err != nil {
		t.Fatalf("%s: query: %v", what, err)
	}
	if !rows.Next() {
		t.Fatalf("%s: no row: %v", what, rows.Err())
	}
	var (
		id64           int64
		amountS, nameS string
		at, flag       any
		note           string
		a2             float64
	)
	err = rows.Scan(&id64, &a2, &amountS, &nameS, &at, &flag, &note)
	if err == nil || !strings.Contains(err.Error(), "note") {
		t.Errorf("%s: NULL into *string: %v; want an error naming the column note", what, err)
	}
	var noteAny any
	if err := rows.Scan(&id64, &a2, &amountS, &nameS, &at, &flag, &noteAny); err != nil || id64 != 1 || nameS != "one" || noteAny != nil {
		t.Errorf("%s: scan into *int64, *string, *any = %v %q %v, %v", what, id64, nameS, noteAny, err)
	}
	if err := rows.Close(); err != nil { // rows left unread
		t.Fatalf("%s: close with rows left: %v", what, err)
	}

	// A statement that fails: its error comes from Query or from the rows.
	rows, err = query("SELECT id FROM fb_rows_missing WHERE id >= $1", int64(1))
	if err == nil {
		for rows.Next() {
		}
		err = rows.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "fb_rows_missing") {
		t.Errorf("%s: a query of a missing table gave %v; want its error", what, err)
	}
	if v, err := s.QueryInt64(context.Background(), "SELECT count(*) FROM fb_rows"); err != nil || v != 3 {
		t.Fatalf("%s: the session after the rows: %d, %v", what, v, err)
	}
}
