package ssb_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// spyTyped counts the rows a driver read through the typed path.
type spyTyped struct {
	driver.TypedRowSource
	typed int
}

func (s *spyTyped) Typed() ([]int64, []string) {
	s.typed++
	return s.TypedRowSource.Typed()
}

// boxedOnly hides a source's typed rows: the driver must read Values.
type boxedOnly struct{ driver.RowSource }

// The ClickHouse driver loads a typed source from its typed slots; the rows
// must be those the boxed path (Values, which PostgreSQL and SQLite read)
// loads from the same generator: same count, same checksum, table by table,
// through the load's row counting as a real load goes.
func TestTypedAndBoxedRowsLoadTheSame(t *testing.T) {
	ctx := context.Background()
	ch := testenv.Connect(t, testenv.FreshClickHouse(t), driver.Options{}).(driver.SQL)
	bl := ch.(driver.BulkLoader)
	task := progress.New(io.Discard, false).Start("rows", 0, "rows")
	defer task.End()
	g := ssb.New(0.01, 5)
	for _, table := range []string{ssb.Lineorder, ssb.Flat, ssb.Customer, ssb.Part, ssb.Date} {
		cols := ssb.Columns(table)
		source := func() driver.RowSource { return g.All(table) }
		if table == ssb.Flat {
			cols = ssb.FlatColumns()
			source = func() driver.RowSource { return g.FlatRows(ssb.Chunk{Lo: 1, Hi: g.Keys(ssb.Flat)}) }
		}
		ddl, err := ssb.CreateTable(ssb.ClickHouse18, table)
		if err != nil {
			t.Fatal(err)
		}
		sums := map[string]string{}
		for _, path := range []string{"typed", "boxed"} {
			name := table + "_" + path
			if err := ch.Exec(ctx, strings.Replace(ddl, "CREATE TABLE "+table+" ", "CREATE TABLE "+name+" ", 1)); err != nil {
				t.Fatal(err)
			}
			var src driver.RowSource = boxedOnly{source()}
			spy := &spyTyped{TypedRowSource: source().(driver.TypedRowSource)}
			if path == "typed" {
				src = spy
			}
			n, err := bl.BulkLoad(ctx, name, cols, workload.CountRows(src, task), false)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if path == "typed" && spy.typed != int(n) {
				t.Fatalf("%s: %d of %d rows read through the typed path", name, spy.typed, n)
			}
			rows, err := ch.Query(ctx, "SELECT toString(count()), toString(sum(cityHash64("+strings.Join(cols, ", ")+"))) FROM "+name)
			if err != nil {
				t.Fatal(err)
			}
			var count, sum string
			for rows.Next() {
				if err := rows.Scan(&count, &sum); err != nil {
					t.Fatal(err)
				}
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if count == "0" || count != strconv.FormatInt(n, 10) {
				t.Fatalf("%s: %s rows in the table, %d loaded", name, count, n)
			}
			sums[path] = count + " rows, checksum " + sum
		}
		if sums["typed"] != sums["boxed"] {
			t.Errorf("%s: the typed path loaded %s, the boxed path %s", table, sums["typed"], sums["boxed"])
		}
	}
}
