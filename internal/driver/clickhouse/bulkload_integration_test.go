package clickhouse

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// typedSeq is a typed source of n rows (id, grp, f, day, ts), the integers
// converted by the driver to a Float64 and a DateTime.
type typedSeq struct {
	*driver.TypedRow
	i, n int64
}

func newTypedSeq(n int64) *typedSeq {
	k := []driver.Kind{driver.KindInt, driver.KindString, driver.KindInt, driver.KindString, driver.KindInt}
	return &typedSeq{TypedRow: driver.NewTypedRow(k), n: n}
}

func (r *typedSeq) Next() bool {
	if r.i++; r.i > r.n {
		return false
	}
	r.Ints[0], r.Strs[1], r.Ints[2], r.Strs[3], r.Ints[4] = r.i, "g"+strconv.FormatInt(r.i%10, 10), r.i%1000, "2024-01-02", 1_700_000_000+r.i
	return true
}

// boxed hides a source's typed rows.
type boxed struct{ driver.RowSource }

// One BulkLoad streams its rows in blocks of batchRows through one INSERT;
// a typed source loads the same rows as its boxed Values, over several
// blocks and a partial last one, and an empty source loads nothing.
func TestBulkLoadStreamsBlocksTypedOrBoxed(t *testing.T) {
	s, _ := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cols := []string{"id", "grp", "f", "day", "ts"}
	const n = 2*batchRows + 7
	sums := map[string]string{}
	for _, path := range []string{"typed", "boxed"} {
		table := "t_" + path
		if err := s.Exec(ctx, "CREATE TABLE "+table+" (id UInt64, grp String, f Float64, day Date, ts DateTime) ENGINE = MergeTree ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		var src driver.RowSource = newTypedSeq(n)
		if path == "boxed" {
			src = boxed{src}
		}
		if got, err := s.BulkLoad(ctx, table, cols, src, false); err != nil || got != n {
			t.Fatalf("%s: BulkLoad %d rows, %v; want %d", path, got, err, n)
		}
		rows, err := s.Query(ctx, "SELECT toString(count()), toString(uniqExact(id)), toString(sum(cityHash64(id, grp, f, day, ts))) FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		var count, ids, sum string
		for rows.Next() {
			if err := rows.Scan(&count, &ids, &sum); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		if count != strconv.Itoa(n) || ids != count {
			t.Fatalf("%s: %s rows, %s ids; want %d of each", path, count, ids, n)
		}
		sums[path] = sum
	}
	if sums["typed"] != sums["boxed"] {
		t.Errorf("checksum of the typed load %s, of the boxed load %s", sums["typed"], sums["boxed"])
	}
	if got, err := s.BulkLoad(ctx, "t_typed", cols, newTypedSeq(0), false); err != nil || got != 0 {
		t.Errorf("empty source: %d rows, %v", got, err)
	}
}
