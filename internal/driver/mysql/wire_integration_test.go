package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// wireCase is one prepared statement run on both paths.
type wireCase struct {
	q    string
	args []any
}

// wireOutcome is what a case returned: the value, or the kind of error.
type wireOutcome struct {
	v      int64
	err    string // "" when none, "no rows", "mysql <n>" or "conversion"
	number uint16
}

func outcomeOf(v int64, err error) wireOutcome {
	var me *gomysql.MySQLError
	switch {
	case err == nil:
		return wireOutcome{v: v}
	case errors.Is(err, sql.ErrNoRows):
		return wireOutcome{err: "no rows"}
	case errors.As(err, &me):
		return wireOutcome{err: "mysql", number: me.Number}
	}
	return wireOutcome{err: "conversion"}
}

// Prepared statements sent by fairbench itself (wire.go) return what the same
// statements return through go-sql-driver and database/sql: values of every
// integer-like column type, NULL, no rows, conversion errors, server errors,
// parameters whose types change between executions, result sets whose
// metadata the server leaves out after the first time or sends again after
// an ALTER, a procedure's several results; and the connection stays usable
// for go-sql-driver after each.
func TestWireStatementsMatchGoSQLDriver(t *testing.T) {
	url := testenv.FreshMySQL(t)
	ctx := context.Background()
	setup, err := connect(t, url, "prepared")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE w (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, sm SMALLINT, md MEDIUMINT,
			i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(10,2), dbl DOUBLE,
			vc VARCHAR(20), nul INT NULL, yr YEAR)`,
		`CREATE TABLE alt (id INT PRIMARY KEY, v INT)`,
		`INSERT INTO alt VALUES (1, 42)`,
		`CREATE PROCEDURE two_results(IN x INT) BEGIN SELECT x; SELECT x + 1; END`,
	} {
		if err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := setup.Prepare(ctx, "INSERT INTO w VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)")
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{int64(1), int64(-5), int64(250), int64(-30000), int64(-8000000), int64(-2000000000), int64(4000000000),
			int64(math.MinInt64), uint64(math.MaxUint64), "12.00", 3.0, "77", nil, int64(2024)},
		{int64(2), true, int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), uint64(6), "12.50", 2.5, "abc", int64(9), int64(1999)},
	}
	for _, r := range rows {
		if err := ins.Exec(ctx, r...); err != nil {
			t.Fatalf("insert %v: %v", r, err)
		}
	}
	var cases []wireCase
	for _, col := range []string{"ti", "tu", "sm", "md", "i", "iu", "bi", "bu", "de", "dbl", "vc", "nul", "yr"} {
		for id := int64(1); id <= 3; id++ {
			cases = append(cases, wireCase{"SELECT " + col + " FROM w WHERE id = $1", []any{id}})
		}
	}
	cases = append(cases,
		wireCase{"SELECT $1", []any{int64(-7)}},
		wireCase{"SELECT $1", []any{"123"}}, // the same text with a string: types sent again
		wireCase{"SELECT $1", []any{int64(8)}},
		wireCase{"SELECT $1", []any{nil}},
		wireCase{"SELECT $1 + 0", []any{time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}}, // not encoded here: go-sql-driver runs it
		wireCase{"SELECT sum(i) FROM w", nil},
		wireCase{"SELECT id FROM w WHERE id > $1 ORDER BY id", []any{int64(0)}},
		wireCase{"INSERT INTO w (id) VALUES ($1)", []any{int64(1)}}, // duplicate key
		wireCase{"SELECT no_such_column FROM w", nil},
		wireCase{"UPDATE alt SET v = v WHERE id = $1", []any{int64(1)}},
	)
	// Per case: the prepare's error, two queries, one Exec.
	type caseOutcome struct{ prepare, first, second, exec wireOutcome }
	run := func(wire string) ([]caseOutcome, []wireOutcome, result.Database) {
		t.Setenv("FAIRBENCH_MYSQL_WIRE", wire)
		c, err := connect(t, url, "prepared")
		if err != nil {
			t.Fatal(err)
		}
		var out []caseOutcome
		for _, k := range cases {
			var o caseOutcome
			s, err := c.Prepare(ctx, k.q)
			if o.prepare = outcomeOf(0, err); err == nil {
				// Twice: MariaDB leaves the metadata out the second time.
				o.first = outcomeOf(s.QueryInt64(ctx, k.args...))
				o.second = outcomeOf(s.QueryInt64(ctx, k.args...))
				o.exec = outcomeOf(0, s.Exec(ctx, k.args...))
			}
			out = append(out, o)
			// The connection is in step: go-sql-driver's next query works.
			if v, err := c.QueryInt64(ctx, "SELECT 11"); err != nil || v != 11 {
				t.Fatalf("wire=%s: after %q the connection returns %d, %v", wire, k.q, v, err)
			}
		}
		// Metadata sent again after the column's type changed.
		s, err := c.Prepare(ctx, "SELECT v FROM alt WHERE id = $1")
		if err != nil {
			t.Fatal(err)
		}
		var altered []wireOutcome
		for _, typ := range []string{"INT", "VARCHAR(10)", "BIGINT UNSIGNED", "DECIMAL(5,0)", "TINYINT"} {
			if err := c.Exec(ctx, "ALTER TABLE alt MODIFY v "+typ); err != nil {
				t.Fatal(err)
			}
			altered = append(altered, outcomeOf(s.QueryInt64(ctx, int64(1))))
		}
		env, err := c.(driver.Environment).Environment(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return out, altered, env
	}
	onWire, alteredOnWire, env := run("")
	if got := fmt.Sprint(env.Extra["statements"]); got != "prepared, sent by fairbench (COM_STMT_EXECUTE on the socket)" {
		t.Fatalf("statements on the default path: %q", got)
	}
	viaDriver, alteredViaDriver, env := run("off")
	if got := fmt.Sprint(env.Extra["statements"]); got != "prepared, sent by go-sql-driver" {
		t.Fatalf("statements with FAIRBENCH_MYSQL_WIRE=off: %q", got)
	}
	for i, k := range cases {
		if onWire[i] != viaDriver[i] {
			t.Errorf("%s %v: wire %+v, go-sql-driver %+v", k.q, k.args, onWire[i], viaDriver[i])
		}
		if onWire[i].first != onWire[i].second {
			t.Errorf("%s %v: first %+v, second %+v", k.q, k.args, onWire[i].first, onWire[i].second)
		}
	}
	for i := range alteredOnWire {
		if alteredOnWire[i] != (wireOutcome{v: 42}) || alteredViaDriver[i] != alteredOnWire[i] {
			t.Errorf("after ALTER %d: wire %+v, go-sql-driver %+v", i, alteredOnWire[i], alteredViaDriver[i])
		}
	}
	// The answers both paths share are the right ones.
	want := map[string]wireOutcome{
		"SELECT bi FROM w WHERE id = $1 [1]":             {v: math.MinInt64},
		"SELECT iu FROM w WHERE id = $1 [1]":             {v: 4000000000},
		"SELECT tu FROM w WHERE id = $1 [1]":             {v: 250},
		"SELECT ti FROM w WHERE id = $1 [2]":             {v: 1},
		"SELECT md FROM w WHERE id = $1 [1]":             {v: -8000000},
		"SELECT vc FROM w WHERE id = $1 [1]":             {v: 77},
		"SELECT vc FROM w WHERE id = $1 [2]":             {err: "conversion"},
		"SELECT dbl FROM w WHERE id = $1 [1]":            {v: 3},
		"SELECT dbl FROM w WHERE id = $1 [2]":            {err: "conversion"},
		"SELECT de FROM w WHERE id = $1 [2]":             {err: "conversion"},
		"SELECT bu FROM w WHERE id = $1 [1]":             {err: "conversion"},
		"SELECT nul FROM w WHERE id = $1 [1]":            {v: 0},
		"SELECT nul FROM w WHERE id = $1 [3]":            {err: "no rows"},
		"SELECT yr FROM w WHERE id = $1 [2]":             {v: 1999},
		"SELECT $1 [-7]":                                 {v: -7},
		"SELECT $1 [123]":                                {v: 123},
		"SELECT $1 [8]":                                  {v: 8},
		"SELECT sum(i) FROM w []":                        {v: -2000000000 + 3},
		"SELECT id FROM w WHERE id > $1 ORDER BY id [0]": {v: 1},
		"INSERT INTO w (id) VALUES ($1) [1]":             {err: "mysql", number: 1062},
	}
	for i, k := range cases {
		key := fmt.Sprintf("%s %v", k.q, k.args)
		if w, ok := want[key]; ok {
			delete(want, key)
			if onWire[i].first != w {
				t.Errorf("%s: %+v, want %+v", key, onWire[i].first, w)
			}
		}
	}
	for key := range want {
		t.Errorf("no case %s", key)
	}
	if o := onWire[len(cases)-2]; o.prepare != (wireOutcome{err: "mysql", number: 1054}) {
		t.Errorf("preparing a statement with an unknown column: %+v", o.prepare)
	}
	c, err := connect(t, url, "prepared")
	if err != nil {
		t.Fatal(err)
	}
	// A procedure's two result sets and its final OK are all read (through
	// go-sql-driver, a prepared CALL's Exec after its QueryRow waits forever).
	call, err := c.Prepare(ctx, "CALL two_results($1)")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if v, err := call.QueryInt64(ctx, int64(40)); err != nil || v != 40 {
			t.Fatalf("CALL: %d, %v", v, err)
		}
		if err := call.Exec(ctx, int64(40)); err != nil {
			t.Fatalf("CALL: %v", err)
		}
		if v, err := c.QueryInt64(ctx, "SELECT 11"); err != nil || v != 11 {
			t.Fatalf("after CALL the connection returns %d, %v", v, err)
		}
	}
	s, err := c.Prepare(ctx, "INSERT INTO w (id) VALUES ($1)")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, int64(1)); c.Classify(err) != result.ErrConstraint {
		t.Fatalf("duplicate key on the wire: %v classified %s", err, c.Classify(err))
	}
}
