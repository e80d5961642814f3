package ssb_test

import (
	"io"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// The ClickHouse driver loads a typed source from its typed slots; the rows
// must be those the boxed path (Values, which PostgreSQL and SQLite read)
// loads from the same generator, table by table, through the load's row
// counting as a real load goes.
func TestTypedAndBoxedRowsLoadTheSame(t *testing.T) {
	ch := testenv.Connect(t, testenv.FreshClickHouse(t), driver.Options{}).(driver.SQL)
	task := progress.New(io.Discard, false).Start("rows", 0, "rows")
	defer task.End()
	count := func(src driver.RowSource) driver.RowSource { return workload.CountRows(src, task) }
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
		testenv.LoadTypedAndBoxed(t, ch, ddl, table, cols, source, count)
	}
}
