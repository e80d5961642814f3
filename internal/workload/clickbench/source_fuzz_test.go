package clickbench

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzTextSources feeds arbitrary bytes to the TSV and CSV readers: they
// must not panic, and whatever rows the TSV reader accepts must come back
// the same after ClickHouse's escaping and a second reading.
func FuzzTextSources(f *testing.F) {
	rows := fixture(&testing.T{})[:3]
	f.Add(writeTSV(rows))
	f.Add(writeCSV(&testing.T{}, rows, true))
	f.Add([]byte("1\t2\n"))
	f.Add([]byte("a\\"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(data []byte, tsv bool) ([][]any, error) {
			s := newTextSource(bytes.NewReader(data), "fuzz", tsv, func() error { return nil })
			var out [][]any
			for s.Next() {
				out = append(out, append([]any(nil), s.Values()...))
			}
			return out, s.Err()
		}
		read(data, false)
		accepted, _ := read(data, true)
		if len(accepted) == 0 {
			return
		}
		again, err := read(writeTSV(accepted), true)
		if err != nil || !reflect.DeepEqual(again, accepted) {
			t.Fatalf("rows read from TSV do not survive escaping: %v", err)
		}
	})
}

// FuzzEscapeTSV: unescaping undoes escaping, and an escaped value holds no
// tab or newline to break its line.
func FuzzEscapeTSV(f *testing.F) {
	f.Add("plain")
	f.Add("tab\there\nnew\\line'\x00\b\f\r")
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapeTSV(s)
		if strings.ContainsAny(e, "\t\n") {
			t.Fatalf("%q escapes to %q", s, e)
		}
		if got := unescapeTSV([]byte(e)); got != s {
			t.Fatalf("%q → %q → %q", s, e, got)
		}
	})
}
