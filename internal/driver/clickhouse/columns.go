package clickhouse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
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
	// flush appends what was collected to the batch's column and starts over.
	flush(c chdriver.BatchColumn) error
}

type typed[T any] struct {
	vals []T
	conv func(any) (T, error)
}

func (c *typed[T]) add(v any) error {
	x, err := c.conv(v)
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

func newTyped[T any](conv func(any) (T, error)) column {
	return &typed[T]{vals: make([]T, 0, batchRows), conv: conv}
}

// signed converts to an integer of bits bits, refusing values out of range.
func signed[T int8 | int16 | int32 | int64](bits int) func(any) (T, error) {
	lim := int64(math.MaxInt64)
	if bits < 64 {
		lim = 1<<(bits-1) - 1
	}
	return func(v any) (T, error) {
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case string:
			var err error
			if n, err = strconv.ParseInt(strings.TrimSpace(x), 10, bits); err != nil {
				return 0, err
			}
		default:
			return 0, badValue(v)
		}
		if n > lim || n < -lim-1 {
			return 0, fmt.Errorf("%d is out of Int%d's range", n, bits)
		}
		return T(n), nil
	}
}

// unsigned converts to an unsigned integer of bits bits.
func unsigned[T uint8 | uint16 | uint32 | uint64](bits int) func(any) (T, error) {
	lim := uint64(math.MaxUint64)
	if bits < 64 {
		lim = 1<<bits - 1
	}
	return func(v any) (T, error) {
		var n uint64
		switch x := v.(type) {
		case int64:
			if x < 0 {
				return 0, fmt.Errorf("%d is negative", x)
			}
			n = uint64(x)
		case string:
			var err error
			if n, err = strconv.ParseUint(strings.TrimSpace(x), 10, bits); err != nil {
				return 0, err
			}
		default:
			return 0, badValue(v)
		}
		if n > lim {
			return 0, fmt.Errorf("%d is out of UInt%d's range", n, bits)
		}
		return T(n), nil
	}
}

func float[T float32 | float64](bits int) func(any) (T, error) {
	return func(v any) (T, error) {
		switch x := v.(type) {
		case int64:
			return T(x), nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), bits)
			return T(f), err
		}
		return 0, badValue(v)
	}
}

func text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return "", badValue(v)
}

func date(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, badValue(v)
	}
	return time.Parse(time.DateOnly, s)
}

func dateTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case int64:
		return time.Unix(x, 0).UTC(), nil
	case string:
		return time.Parse(time.DateTime, x)
	}
	return time.Time{}, badValue(v)
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
		return newTyped(text), true
	case typ == "Date":
		return newTyped(date), true
	case typ == "DateTime" || strings.HasPrefix(typ, "DateTime("):
		return newTyped(dateTime), true
	}
	switch typ {
	case "Int8":
		return newTyped(signed[int8](8)), true
	case "Int16":
		return newTyped(signed[int16](16)), true
	case "Int32":
		return newTyped(signed[int32](32)), true
	case "Int64":
		return newTyped(signed[int64](64)), true
	case "UInt8":
		return newTyped(unsigned[uint8](8)), true
	case "UInt16":
		return newTyped(unsigned[uint16](16)), true
	case "UInt32":
		return newTyped(unsigned[uint32](32)), true
	case "UInt64":
		return newTyped(unsigned[uint64](64)), true
	case "Float32":
		return newTyped(float[float32](32)), true
	case "Float64":
		return newTyped(float[float64](64)), true
	}
	return nil, false
}

// batchSink takes a batch's rows: as typed columns (columnSink) or, for
// types without a builder, converted and appended row by row (rowSink).
type batchSink interface {
	// add takes one row; a value it cannot convert fails with its
	// column's index, the client's own failure with -1.
	add(b chdriver.Batch, vals []any) (col int, err error)
	// flush hands the batch what add collected; a failure names its column.
	flush(b chdriver.Batch) (col int, err error)
}

type columnSink []column

func (cs columnSink) add(_ chdriver.Batch, vals []any) (int, error) {
	for i, v := range vals {
		if err := cs[i].add(v); err != nil {
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

func (r *rowSink) add(b chdriver.Batch, vals []any) (int, error) {
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
