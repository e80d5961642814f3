package clickbench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

const fixtureRows = 600

// fixture returns synthetic rows, with row 2's Title holding every character
// TSV escapes and CSV quotes, and row 3's SearchPhrase non-ASCII.
func fixture(t *testing.T) [][]any {
	t.Helper()
	var out [][]any
	for src := NewSynthetic(fixtureRows, 9).Rows(Chunk{1, fixtureRows}); src.Next(); {
		out = append(out, append([]any(nil), src.Values()...))
	}
	out[1][2] = "tab\there, newline\nthere, back\\slash, 'quote' \"double\", cr\r, nul\x00, bs\b ff\f"
	out[2][39] = "купить телефон"
	return out
}

func text(v any) string {
	if n, ok := v.(int64); ok {
		return strconv.FormatInt(n, 10)
	}
	return v.(string)
}

// writeTSV writes rows as ClickHouse's TabSeparated output does.
func writeTSV(rows [][]any) []byte {
	var b []byte
	for _, r := range rows {
		b = AppendTSV(b, r)
	}
	return b
}

func writeCSV(t *testing.T, rows [][]any, header bool) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if header {
		w.Write(Columns())
	}
	for _, r := range rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = text(v)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.Bytes()
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	z := gzip.NewWriter(&out)
	z.Write(b)
	z.Close()
	return out.Bytes()
}

// writeParquet writes rows with the column types of ClickBench's
// hits.parquet: integers as INT32/INT64 with their width, EventDate as
// uint16 days since the epoch, the times as plain int64 seconds, strings as
// BYTE_ARRAY without a UTF8 annotation; row groups of 250 rows.
func writeParquet(t *testing.T, rows [][]any, patch func(col string, v parquet.Value, row int) parquet.Value) []byte {
	t.Helper()
	group := parquet.Group{}
	for _, c := range columns {
		var n parquet.Node
		switch c[1] {
		case "BIGINT":
			n = parquet.Int(64)
		case "INTEGER":
			n = parquet.Int(32)
		case "SMALLINT":
			n = parquet.Int(16)
		case "Date":
			n = parquet.Uint(16)
		case "TIMESTAMP":
			n = parquet.Leaf(parquet.Int64Type)
		default:
			n = parquet.Leaf(parquet.ByteArrayType)
		}
		group[c[0]] = parquet.Required(n)
	}
	schema := parquet.NewSchema("hits", group)
	var b bytes.Buffer
	w := parquet.NewWriter(&b, schema, parquet.MaxRowsPerRowGroup(250))
	leaves := schema.Columns() // a Group's leaves are in name order, not hits'
	pos := map[string]int{}
	for i, c := range columns {
		pos[c[0]] = i
	}
	for ri, r := range rows {
		row := make(parquet.Row, len(leaves))
		for j, path := range leaves {
			name := path[0]
			v := r[pos[name]]
			var pv parquet.Value
			switch columns[pos[name]][1] {
			case "BIGINT", "TIMESTAMP":
				if s, ok := v.(string); ok {
					tm, err := time.Parse(time.DateTime, s)
					if err != nil {
						t.Fatal(err)
					}
					v = tm.Unix()
				}
				pv = parquet.Int64Value(v.(int64))
			case "INTEGER", "SMALLINT":
				pv = parquet.Int32Value(int32(v.(int64)))
			case "Date":
				tm, err := time.Parse(time.DateOnly, v.(string))
				if err != nil {
					t.Fatal(err)
				}
				pv = parquet.Int32Value(int32(tm.Unix() / 86400))
			default:
				pv = parquet.ByteArrayValue([]byte(v.(string)))
			}
			if patch != nil {
				pv = patch(name, pv, ri+1)
			}
			row[j] = pv.Level(0, 0, j)
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAll reads a source to its end and returns its rows and error.
func readAll(t *testing.T, pathOrURL string) ([][]any, error) {
	t.Helper()
	s, err := OpenSource(context.Background(), pathOrURL)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out [][]any
	for s.Next() {
		out = append(out, append([]any(nil), s.Values()...))
	}
	return out, s.Err()
}

func sameRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			for j := range want[i] {
				if !reflect.DeepEqual(got[i][j], want[i][j]) {
					t.Fatalf("%s: row %d, %s: %#v, want %#v", what, i+1, columns[j][0], got[i][j], want[i][j])
				}
			}
		}
	}
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSourcesRoundTrip reads the same rows back from every format, from a
// file and over HTTP.
func TestSourcesRoundTrip(t *testing.T) {
	rows := fixture(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"hits.tsv":     writeTSV(rows),
		"hits.tsv.gz":  gz(writeTSV(rows)),
		"hits.csv":     writeCSV(t, rows, false),
		"header.csv":   writeCSV(t, rows, true),
		"hits.csv.gz":  gz(writeCSV(t, rows, false)),
		"hits.parquet": writeParquet(t, rows, nil),
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for name, b := range files {
		p := write(t, dir, name, b)
		for _, where := range []string{p, srv.URL + "/" + name} {
			got, err := readAll(t, where)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			sameRows(t, where, got, rows)
		}
	}
	if _, err := readAll(t, srv.URL+"/missing.tsv"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing URL: %v", err)
	}
	if _, err := OpenSource(context.Background(), filepath.Join(dir, "hits.json")); err == nil {
		t.Error("a .json file accepted")
	}
	if _, err := OpenSource(context.Background(), filepath.Join(dir, "hits.parquet.gz")); err == nil || !strings.Contains(err.Error(), "Parquet") {
		t.Errorf("a .parquet.gz: %v", err)
	}
}

// TestSourceErrors: a bad line or row stops the source with an error that
// names the file, the line or row and the column.
func TestSourceErrors(t *testing.T) {
	rows := fixture(t)[:5]
	dir := t.TempDir()
	short := append([][]any(nil), rows...)
	short[2] = short[2][:104]
	badInt := append([][]any(nil), rows...)
	badInt[3] = append([]any(nil), rows[3]...)
	badInt[3][6] = "sixty-two"
	wide := append([][]any(nil), rows...)
	wide[1] = append([]any(nil), rows[1]...)
	wide[1][11] = int64(40000) // OS is a SMALLINT
	badDate := append([][]any(nil), rows...)
	badDate[4] = append([]any(nil), rows[4]...)
	badDate[4][5] = "2013-07-32"
	for _, c := range []struct {
		name string
		data []byte
		want string
		rows int
	}{
		{"hits.tsv", writeTSV(short), "hits.tsv:3: 104 columns, hits has 105", 2},
		// Row 2's Title holds a newline: in CSV, row 3 starts on line 4.
		{"hits.csv", writeCSV(t, short, false), "hits.csv:4: 104 columns, hits has 105", 2},
		{"hits.tsv.gz", gz(writeTSV(short)), "hits.tsv.gz:3: 104 columns, hits has 105", 2},
		{"int.tsv", writeTSV(badInt), `int.tsv:4: column CounterID: "sixty-two" is not a valid INTEGER`, 3},
		{"wide.csv", writeCSV(t, wide, true), `wide.csv:3: column OS: "40000" is not a valid SMALLINT`, 1},
		{"date.tsv", writeTSV(badDate), `date.tsv:5: column EventDate: "2013-07-32" is not a date`, 4},
		{"quote.csv", []byte("1,\"unterminated\n"), "quote.csv:1: extraneous or missing \" in quoted-field", 0},
	} {
		p := write(t, dir, c.name, c.data)
		s, err := OpenSource(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
		}
		s.Close()
		if s.Err() == nil || !strings.Contains(s.Err().Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, s.Err(), c.want)
		}
		if n != c.rows {
			t.Errorf("%s: %d rows before the error, want %d", c.name, n, c.rows)
		}
	}

	// Parquet: a SMALLINT out of range in the second row group.
	big := fixture(t)
	p := write(t, dir, "wide.parquet", writeParquet(t, big, func(col string, v parquet.Value, row int) parquet.Value {
		if col == "OS" && row == 253 {
			return parquet.Int32Value(40000)
		}
		return v
	}))
	_, err := readAll(t, p)
	if want := "wide.parquet: row group 2, row 3: column OS: 40000 is out of a SMALLINT's range"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("parquet: %v, want %q", err, want)
	}
}
