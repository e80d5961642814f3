package clickbench_test

import (
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload/clickbench"
)

// The synthetic hits load the same rows into ClickHouse through the typed
// path as through Values (which PostgreSQL and SQLite read).
func TestTypedAndBoxedRowsLoadTheSame(t *testing.T) {
	ch := testenv.Connect(t, testenv.FreshClickHouse(t), driver.Options{}).(driver.SQL)
	ddl, err := clickbench.CreateTable(clickbench.ClickHouse18)
	if err != nil {
		t.Fatal(err)
	}
	g := clickbench.NewSynthetic(5000, 3)
	source := func() driver.RowSource { return g.Rows(clickbench.Chunk{Lo: 1, Hi: 5000}) }
	same := func(src driver.RowSource) driver.RowSource { return src }
	testenv.LoadTypedAndBoxed(t, ch, ddl, clickbench.Table, clickbench.LoadColumns(clickbench.ClickHouse18), source, same)
}
