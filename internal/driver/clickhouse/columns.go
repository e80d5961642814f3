package clickhouse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fairbench/fairbench/internal/driver"
)

// Columnar loading. A batch appended row by row goes through clickhouse-go's
// reflection for every value, and the row needs every value converted and
// boxed first: about 40 % of a load's CPU (bench/README.md, "Analytics").
// A column of a plain type instead collects its batch in a typed slice that
// the client appends at once. Types without a columnar builder here
// (Nullable, Decimal, arrays, …) keep the row path.

// column collects one column of a batch.
type column interface {
	add(v any) error
	// addInt and addStr take a typed source's value (driver.TypedRowSource)
	// without boxing it.
	addInt(n int64) error
	addStr(s string) error
	// flush appends what was collected to the batch's column and starts over.
	flush(c chdriver.BatchColumn) error
}

// conv converts the two kinds of values a source yields to a column's Go type.
type conv[T any] struct {
	fromInt func(int64) (T, error) // nil: the column takes no integers
	fromStr func(string) (T, error)
}

type typed[T any] struct {
	vals []T
	conv conv[T]
}

func (c *typed[T]) add(v any) error {
	switch x := v.(type) {
	case int64:
		return c.addInt(x)
	case string:
		return c.addStr(x)
	}
	return badValue(v)
}

func (c *typed[T]) addInt(n int64) error {
	if c.conv.fromInt == nil {
		return badValue(n)
	}
	x, err := c.conv.fromInt(n)
	if err != nil {
		return err
	}
	c.vals = append(c.vals, x)
	return nil
}

func (c *typed[T]) addStr(s string) error {
	x, err := c.conv.fromStr(s)
	if err != nil {
		return err
	}
	c.vals = append(c.vals, x)
	return nil
}

func (c *typed[T]) flush(b chdriver.BatchColumn) error {
	err := b.Append(c.vals)
	// The client has copied the values into its block: clearing the slots
	// lets the collector free this batch's strings while the next one
	// fills, instead of keeping two batches' worth alive per session.
	clear(c.vals)
	c.vals = c.vals[:0]
	return err
}

func newTyped[T any](fromInt func(int64) (T, error), fromStr func(string) (T, error)) column {
	return &typed[T]{vals: make([]T, 0, batchRows), conv: conv[T]{fromInt, fromStr}}
}

// signed converts to an integer of bits bits, refusing values out of range.
func signed[T int8 | int16 | int32 | int64](bits int) column {
	lim := int64(math.MaxInt64)
	if bits < 64 {
		lim = 1<<(bits-1) - 1
	}
	fromInt := func(n int64) (T, error) {
		if n > lim || n < -lim-1 {
			return 0, fmt.Errorf("%d is out of Int%d's range", n, bits)
		}
		return T(n), nil
	}
	return newTyped(fromInt, func(s string) (T, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return 0, err
		}
		return fromInt(n)
	})
}

// unsigned converts to an unsigned integer of bits bits.
func unsigned[T uint8 | uint16 | uint32 | uint64](bits int) column {
	lim := uint64(math.MaxUint64)
	if bits < 64 {
		lim = 1<<bits - 1
	}
	inRange := func(n uint64) (T, error) {
		if n > lim {
			return 0, fmt.Errorf("%d is out of UInt%d's range", n, bits)
		}
		return T(n), nil
	}
	return newTyped(func(n int64) (T, error) {
		if n < 0 {
			return 0, fmt.Errorf("%d is negative", n)
		}
		return inRange(uint64(n))
	}, func(s string) (T, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return 0, err
		}
		return inRange(n)
	})
}

func float[T float32 | float64](bits int) column {
	return newTyped(func(n int64) (T, error) { return T(n), nil }, func(s string) (T, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), bits)
		return T(f), err
	})
}

func text() column {
	return newTyped(func(n int64) (string, error) { return strconv.FormatInt(n, 10), nil },
		func(s string) (string, error) { return s, nil })
}

func date() column {
	return newTyped(nil, func(s string) (time.Time, error) { return parseTime(time.DateOnly, s) })
}

func dateTime() column {
	return newTyped(func(n int64) (time.Time, error) { return time.Unix(n, 0).UTC(), nil },
		func(s string) (time.Time, error) { return parseTime(time.DateTime, s) })
}

// parseTime is time.Parse of layout, time.DateOnly or time.DateTime, with
// a fast path for a well-formed value: time.Parse's walk of the layout was
// an eighth of a ClickBench load's CPU. Anything else, and every error,
// is time.Parse's.
func parseTime(layout, s string) (time.Time, error) {
	if len(s) == len(layout) {
		if t, ok := parseDateTime(s); ok {
			return t, nil
		}
	}
	return time.Parse(layout, s)
}

// parseDateTime reads YYYY-MM-DD or YYYY-MM-DD hh:mm:ss as UTC, as
// time.Parse does; false when s is not one of them or a field is out of range.
func parseDateTime(s string) (time.Time, bool) {
	ok := true
	num := func(at, width int) int {
		n := 0
		for _, c := range []byte(s[at : at+width]) {
			if c < '0' || c > '9' {
				ok = false
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	sep := func(at int, c byte) {
		if s[at] != c {
			ok = false
		}
	}
	y, mo, d := num(0, 4), num(5, 2), num(8, 2)
	sep(4, '-')
	sep(7, '-')
	h, mi, sec := 0, 0, 0
	switch len(s) {
	case len(time.DateOnly):
	case len(time.DateTime):
		h, mi, sec = num(11, 2), num(14, 2), num(17, 2)
		sep(10, ' ')
		sep(13, ':')
		sep(16, ':')
	default:
		return time.Time{}, false
	}
	if !ok || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d { // the 31st of a 30-day month, 29 February of a common year
		return time.Time{}, false
	}
	return t, true
}

func badValue(v any) error {
	if v == nil {
		return fmt.Errorf("NULL for a column that is not Nullable")
	}
	return fmt.Errorf("value of type %T (want int64, string or nil)", v)
}

// newColumn returns the columnar builder of a column of type typ, or false
// when the row path must load it.
func newColumn(typ string) (column, bool) {
	if inner, ok := strings.CutPrefix(typ, "LowCardinality("); ok {
		typ = strings.TrimSuffix(inner, ")")
	}
	switch {
	case typ == "String" || strings.HasPrefix(typ, "FixedString("):
		return text(), true
	case typ == "Date":
		return date(), true
	case typ == "DateTime" || strings.HasPrefix(typ, "DateTime("):
		return dateTime(), true
	}
	switch typ {
	case "Int8":
		return signed[int8](8), true
	case "Int16":
		return signed[int16](16), true
	case "Int32":
		return signed[int32](32), true
	case "Int64":
		return signed[int64](64), true
	case "UInt8":
		return unsigned[uint8](8), true
	case "UInt16":
		return unsigned[uint16](16), true
	case "UInt32":
		return unsigned[uint32](32), true
	case "UInt64":
		return unsigned[uint64](64), true
	case "Float32":
		return float[float32](32), true
	case "Float64":
		return float[float64](64), true
	}
	return nil, false
}

// batchSink takes a batch's rows: as typed columns (columnSink, or
// typedSink from a typed source) or, for types without a builder, converted
// and appended row by row (rowSink).
type batchSink interface {
	// add takes src's current row; a value it cannot convert fails with
	// its column's index, anything else (the client's own failure, a row
	// of the wrong width) with -1.
	add(b chdriver.Batch, src driver.RowSource) (col int, err error)
	// flush hands the batch what add collected; a failure names its column.
	flush(b chdriver.Batch) (col int, err error)
}

// values returns src's current row, checked to have n values.
func values(src driver.RowSource, n int) ([]any, error) {
	vals := src.Values()
	if len(vals) != n {
		return nil, fmt.Errorf("%d values for %d columns", len(vals), n)
	}
	return vals, nil
}

type columnSink []column

func (cs columnSink) add(_ chdriver.Batch, src driver.RowSource) (int, error) {
	vals, err := values(src, len(cs))
	if err != nil {
		return -1, err
	}
	for i, v := range vals {
		if err := cs[i].add(v); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// typedSink is a columnSink that reads a typed source's slots, so that no
// value is boxed on its way from the generator to the column.
type typedSink struct {
	columnSink
	src   driver.TypedRowSource
	kinds []driver.Kind
}

// newTypedSink returns cs reading src's typed rows, or false when src does
// not offer them for these columns.
func newTypedSink(cs columnSink, src driver.RowSource) (typedSink, bool) {
	ts, ok := src.(driver.TypedRowSource)
	if !ok || len(ts.Kinds()) != len(cs) {
		return typedSink{}, false
	}
	return typedSink{columnSink: cs, src: ts, kinds: ts.Kinds()}, true
}

func (t typedSink) add(chdriver.Batch, driver.RowSource) (int, error) {
	ints, strs := t.src.Typed()
	for i, k := range t.kinds {
		var err error
		if k == driver.KindInt {
			err = t.columnSink[i].addInt(ints[i])
		} else {
			err = t.columnSink[i].addStr(strs[i])
		}
		if err != nil {
			return i, err
		}
	}
	return 0, nil
}

func (cs columnSink) flush(b chdriver.Batch) (int, error) {
	for i, c := range cs {
		if err := c.flush(b.Column(i)); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// rowSink is the row path: every value converted (convert) and the row
// appended through the client's reflection.
type rowSink struct {
	types []string
	row   []any
}

func (r *rowSink) add(b chdriver.Batch, src driver.RowSource) (int, error) {
	vals, err := values(src, len(r.types))
	if err != nil {
		return -1, err
	}
	for i, v := range vals {
		var err error
		if r.row[i], err = convert(v, r.types[i]); err != nil {
			return i, err
		}
	}
	return -1, b.Append(r.row...)
}

func (r *rowSink) flush(chdriver.Batch) (int, error) { return 0, nil }

// columnsFor returns a builder per column, or nil when one of the types
// needs the row path.
func columnsFor(types []string) []column {
	out := make([]column, len(types))
	for i, t := range types {
		c, ok := newColumn(t)
		if !ok {
			return nil
		}
		out[i] = c
	}
	return out
}
