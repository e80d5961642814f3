package testenv

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// spyTyped counts the rows a driver read through the typed path.
type spyTyped struct {
	driver.TypedRowSource
	typed int64
}

func (s *spyTyped) Typed() ([]int64, []string) {
	s.typed++
	return s.TypedRowSource.Typed()
}

// boxedOnly hides a source's typed rows: the driver must read Values.
type boxedOnly struct{ driver.RowSource }

// LoadTypedAndBoxed loads the rows of two sources from source, one read
// through its typed rows (driver.TypedRowSource) and one through Values
// only, into tables TABLE_typed and TABLE_boxed made by ddl (a CREATE TABLE
// of table), wrapped by wrap as a real load wraps them (its row counting).
// It fails unless every row of the first went the typed way and both tables
// hold as many rows as loaded with the same ClickHouse checksum over cols.
func LoadTypedAndBoxed(t testing.TB, c driver.SQL, ddl, table string, cols []string, source func() driver.RowSource, wrap func(driver.RowSource) driver.RowSource) {
	t.Helper()
	ctx := context.Background()
	sums := map[string]string{}
	for _, path := range []string{"typed", "boxed"} {
		name := table + "_" + path
		if err := c.Exec(ctx, strings.Replace(ddl, "CREATE TABLE "+table+" ", "CREATE TABLE "+name+" ", 1)); err != nil {
			t.Fatal(err)
		}
		var src driver.RowSource = boxedOnly{source()}
		spy := &spyTyped{TypedRowSource: source().(driver.TypedRowSource)}
		if path == "typed" {
			src = spy
		}
		n, err := c.(driver.BulkLoader).BulkLoad(ctx, name, cols, wrap(src), false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if path == "typed" && spy.typed != n {
			t.Fatalf("%s: %d of %d rows read through the typed path", name, spy.typed, n)
		}
		rows, err := c.Query(ctx, "SELECT toString(count()), toString(sum(cityHash64("+strings.Join(cols, ", ")+"))) FROM "+name)
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
