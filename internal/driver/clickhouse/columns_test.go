package clickhouse

import (
	"strings"
	"testing"
	"time"
)

// The columnar builders convert as the row path does, and refuse what the
// column cannot hold instead of wrapping it.
func TestColumnConversions(t *testing.T) {
	for _, c := range []struct {
		typ  string
		in   any
		want any
		err  string
	}{
		{"Int8", int64(-128), int8(-128), ""},
		{"Int8", int64(300), nil, "out of Int8's range"},
		{"Int16", " 42", int16(42), ""},
		{"UInt8", int64(-1), nil, "negative"},
		{"UInt16", int64(70000), nil, "out of UInt16's range"},
		{"UInt64", "18446744073709551615", uint64(18446744073709551615), ""},
		{"Float32", int64(3), float32(3), ""},
		{"LowCardinality(String)", int64(7), "7", ""},
		{"FixedString(1)", "x", "x", ""},
		{"Date", "2013-07-15", time.Date(2013, 7, 15, 0, 0, 0, 0, time.UTC), ""},
		{"DateTime", "2013-07-15 10:11:12", time.Date(2013, 7, 15, 10, 11, 12, 0, time.UTC), ""},
		{"DateTime('UTC')", int64(0), time.Unix(0, 0).UTC(), ""},
		{"Int32", nil, nil, "NULL"},
	} {
		col, ok := newColumn(c.typ)
		if !ok {
			t.Fatalf("%s: no columnar builder", c.typ)
		}
		err := col.add(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s ← %v: error %v, want %q", c.typ, c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s ← %v: %v", c.typ, c.in, err)
			continue
		}
		var got any
		switch b := col.(type) {
		case *typed[int8]:
			got = b.vals[0]
		case *typed[int16]:
			got = b.vals[0]
		case *typed[uint64]:
			got = b.vals[0]
		case *typed[float32]:
			got = b.vals[0]
		case *typed[string]:
			got = b.vals[0]
		case *typed[time.Time]:
			got = b.vals[0]
		}
		if got != c.want {
			t.Errorf("%s ← %v: %v (%T), want %v", c.typ, c.in, got, got, c.want)
		}
	}
	for _, typ := range []string{"Nullable(Int32)", "Decimal(10, 2)", "Array(String)"} {
		if _, ok := newColumn(typ); ok {
			t.Errorf("%s has a columnar builder; the row path handles it", typ)
		}
	}
}

// appendedColumn stands for the client's column: it keeps a copy, as the
// client copies the values into its block.
type appendedColumn struct{ got []string }

func (a *appendedColumn) Append(v any) error {
	a.got = append(a.got, v.([]string)...)
	return nil
}

func (a *appendedColumn) AppendRow(any) error { return nil }

// TestFlushReleasesTheBatch: after a flush the builder holds no reference to
// the batch's values, so a session's memory is one batch, not two.
func TestFlushReleasesTheBatch(t *testing.T) {
	col, _ := newColumn("String")
	for _, v := range []string{"Customer#000000001", "Customer#000000002"} {
		if err := col.add(v); err != nil {
			t.Fatal(err)
		}
	}
	var sent appendedColumn
	if err := col.(*typed[string]).flush(&sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.got) != 2 {
		t.Fatalf("the client got %v", sent.got)
	}
	vals := col.(*typed[string]).vals
	for i, v := range vals[:cap(vals)][:2] {
		if v != "" {
			t.Errorf("slot %d still holds %q after the flush", i, v)
		}
	}
}

// TestDateParsingAgreesWithTimeParse: the fast path of Date and DateTime
// values gives what time.Parse gives, and fails where it fails.
func TestDateParsingAgreesWithTimeParse(t *testing.T) {
	cases := map[string][]string{
		time.DateOnly: {"2013-07-15", "2000-02-29", "1999-02-29", "2013-04-31", "2013-12-31", "2013-00-10", "2013-13-01",
			"2013-07-00", "0000-01-01", "9999-12-31", "2013-7-15 ", "2013/07/15", "2013-07-1x", "+013-07-15", "2013-07-15 00:00:00", ""},
		time.DateTime: {"2013-07-15 10:11:12", "2013-07-15 00:00:00", "2013-07-15 23:59:59", "2013-07-15 24:00:00",
			"2013-07-15 10:60:00", "2013-07-15 10:11:60", "2013-07-15T10:11:12", "2013-07-15 10-11-12", "2012-02-29 12:00:00",
			"2013-02-29 12:00:00", "2013-07-15 1:11:12 ", "2013-07-15", "2013-07-15 10:11:1a"},
	}
	for layout, inputs := range cases {
		for _, s := range inputs {
			want, wantErr := time.Parse(layout, s)
			got, err := parseTime(layout, s)
			if (err != nil) != (wantErr != nil) || !got.Equal(want) || got.Location() != want.Location() {
				t.Errorf("parseTime(%q, %q) = %v, %v; time.Parse gives %v, %v", layout, s, got, err, want, wantErr)
			}
		}
	}
}
