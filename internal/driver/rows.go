package driver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Assign stores v, a column's value as a driver decoded it, in dest, the way
// every Rows.Scan converts. v is nil (NULL), int64, uint64, float64, string
// (text, and NUMERIC/DECIMAL in its exact decimal form), []byte, bool or
// time.Time; dest is one of *int64, *int, *float64, *string, *[]byte, *bool,
// *time.Time and *any. col names the column in errors. A []byte v may be
// reused by the driver after the call: Assign copies it.
func Assign(dest, v any, col string) error {
	if v == nil {
		if d, ok := dest.(*any); ok {
			*d = nil
			return nil
		}
		return fmt.Errorf("column %q is NULL: scan it into *any", col)
	}
	fail := func() error {
		return fmt.Errorf("column %q: cannot store %T value %v in %T", col, v, v, dest)
	}
	switch d := dest.(type) {
	case *any:
		if b, ok := v.([]byte); ok {
			v = append([]byte(nil), b...)
		}
		*d = v
	case *int64:
		n, err := toInt(v, col)
		if err != nil {
			return err
		}
		*d = n
	case *int:
		n, err := toInt(v, col)
		if err != nil {
			return err
		}
		if int64(int(n)) != n {
			return fmt.Errorf("column %q: %d overflows int", col, n)
		}
		*d = int(n)
	case *float64:
		switch x := v.(type) {
		case int64:
			*d = float64(x)
		case uint64:
			*d = float64(x)
		case float64:
			*d = x
		case string, []byte:
			f, err := strconv.ParseFloat(strings.TrimSpace(text(x)), 64)
			if err != nil {
				return fmt.Errorf("column %q: %q is not a number", col, text(x))
			}
			*d = f
		default:
			return fail()
		}
	case *string:
		switch x := v.(type) {
		case string:
			*d = x
		case []byte:
			*d = string(x)
		case int64:
			*d = strconv.FormatInt(x, 10)
		case uint64:
			*d = strconv.FormatUint(x, 10)
		case float64:
			*d = strconv.FormatFloat(x, 'g', -1, 64)
		case bool:
			*d = strconv.FormatBool(x)
		case time.Time:
			*d = x.Format(time.RFC3339Nano)
		default:
			return fail()
		}
	case *[]byte:
		switch x := v.(type) {
		case []byte:
			*d = append((*d)[:0], x...)
		case string:
			*d = append((*d)[:0], x...)
		default:
			return fail()
		}
	case *bool:
		switch x := v.(type) {
		case bool:
			*d = x
		case int64:
			*d = x != 0
		case uint64:
			*d = x != 0
		case string, []byte:
			switch strings.ToLower(text(x)) {
			case "t", "true", "1", "y", "yes", "on":
				*d = true
			case "f", "false", "0", "n", "no", "off":
				*d = false
			default:
				return fmt.Errorf("column %q: %q is not a boolean", col, text(x))
			}
		default:
			return fail()
		}
	case *time.Time:
		switch x := v.(type) {
		case time.Time:
			*d = x
		case string, []byte:
			t, err := ParseTime(text(x))
			if err != nil {
				return fmt.Errorf("column %q: %w", col, err)
			}
			*d = t
		default:
			return fail()
		}
	default:
		return fmt.Errorf("column %q: unsupported scan destination %T", col, dest)
	}
	return nil
}

func text(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v.(string)
}

func toInt(v any, col string) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("column %q: %d overflows int64", col, x)
		}
		return int64(x), nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > math.MaxInt64 {
			return 0, fmt.Errorf("column %q: %v is not an integer", col, x)
		}
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string, []byte:
		n, err := strconv.ParseInt(strings.TrimSpace(text(x)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("column %q: %q is not an integer", col, text(x))
		}
		return n, nil
	}
	return 0, fmt.Errorf("column %q: cannot store %T value in an integer", col, v)
}

// timeLayouts are the text forms of timestamps and dates that engines send
// (PostgreSQL's text output, MySQL's DATETIME, SQLite's conventions).
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// ParseTime reads a timestamp or date in one of the text forms engines send;
// one without a zone is taken as UTC.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp", s)
}
