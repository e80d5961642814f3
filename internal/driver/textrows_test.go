package driver

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestAppendTextRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []any
		want string
	}{
		{"ints", []any{int64(42), int(-7), int64(0)}, "42\t-7\t0\n"},
		{"null", []any{nil}, "\\N\n"},
		{"null between values", []any{int64(1), nil, "x"}, "1\t\\N\tx\n"},
		{"plain string", []any{"hello world"}, "hello world\n"},
		{"empty string is not NULL", []any{""}, "\n"},
		{"tab", []any{"a\tb"}, `a\tb` + "\n"},
		{"newline", []any{"a\nb"}, `a\nb` + "\n"},
		{"carriage return", []any{"a\r\nb"}, `a\r\nb` + "\n"},
		{"backslash", []any{`C:\dir`}, `C:\\dir` + "\n"},
		{"literal backslash-N is data, not NULL", []any{`\N`}, `\\N` + "\n"},
		{"end-of-data marker is data", []any{`\.`}, `\\.` + "\n"},
		{"all together", []any{"x\ty\\z\nw\r"}, `x\ty\\z\nw\r` + "\n"},
		{"utf-8 untouched", []any{"héllo, wörld €"}, "héllo, wörld €\n"},
		{"quotes and commas untouched", []any{`it's "fine", ok`}, `it's "fine", ok` + "\n"},
		{"float", []any{1.5}, "1.5\n"},
		{"empty row", []any{}, "\n"},
		{"pgbench_accounts row", []any{int64(1), int64(1), int64(0), strings.Repeat(" ", 84)}, "1\t1\t0\t" + strings.Repeat(" ", 84) + "\n"},
	} {
		if got := string(appendTextRow(nil, tc.vals)); got != tc.want {
			t.Errorf("%s: AppendTextRow(%#v) = %q, want %q", tc.name, tc.vals, got, tc.want)
		}
	}
	// It appends to what is already in the buffer.
	b := appendTextRow([]byte("1\tfirst\n"), []any{int64(2), "second"})
	if got, want := string(b), "1\tfirst\n2\tsecond\n"; got != want {
		t.Errorf("appending to a buffer = %q, want %q", got, want)
	}
}

// seqRows yields n rows (i, text with characters COPY must escape, NULL or i²),
// reusing one slice as the RowSource contract allows.
type seqRows struct {
	n, i int
	vals []any
}

func (r *seqRows) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	var last any
	if r.i%3 != 0 {
		last = int64(r.i) * int64(r.i)
	}
	r.vals = append(r.vals[:0], int64(r.i), fmt.Sprintf("name\t%d\\x\ny", r.i), last)
	return true
}

func (r *seqRows) Values() []any { return r.vals }

// expectedCopy writes the COPY text of seqRows by hand, without appendCopyRow.
func expectedCopy(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		last := `\N`
		if i%3 != 0 {
			last = fmt.Sprint(i * i)
		}
		fmt.Fprintf(&b, "%d\tname\\t%d\\\\x\\ny\t%s\n", i, i, last)
	}
	return b.String()
}

// writerOnly hides bytes.Buffer's ReadFrom, so that io.CopyBuffer really reads
// through the buffer it is given.
type writerOnly struct{ io.Writer }

func TestCopyReaderSmallBuffers(t *testing.T) {
	const n = 10000
	want := expectedCopy(n)
	if !strings.HasPrefix(want, "1\tname\\t1\\\\x\\ny\t1\n2\tname\\t2\\\\x\\ny\t4\n3\tname\\t3\\\\x\\ny\t\\N\n") {
		t.Fatalf("expected text is wrong itself: %q", want[:80])
	}
	// 7 bytes never align with rows; 65531 is what pgx hands to the reader
	// (a 64 KiB buffer minus the 5-byte message header).
	for _, size := range []int{1, 7, 100, 4096, 65531} {
		var out bytes.Buffer
		written, err := io.CopyBuffer(writerOnly{&out}, NewTextRowReader(&seqRows{n: n}), make([]byte, size))
		if err != nil {
			t.Fatalf("buffer %d: %v", size, err)
		}
		if written != int64(len(want)) || out.String() != want {
			t.Errorf("buffer %d: copied %d bytes, want %d; equal: %v", size, written, len(want), out.String() == want)
		}
	}
}

func TestCopyReaderEOF(t *testing.T) {
	r := NewTextRowReader(&seqRows{n: 0})
	for i := 0; i < 2; i++ {
		if n, err := r.Read(make([]byte, 16)); n != 0 || err != io.EOF {
			t.Errorf("empty source, read %d: %d, %v; want 0, EOF", i, n, err)
		}
	}
	r = NewTextRowReader(&seqRows{n: 1})
	p := make([]byte, 64)
	n, err := r.Read(p)
	if want := "1\tname\\t1\\\\x\\ny\t1\n"; err != nil || string(p[:n]) != want {
		t.Errorf("one row: %q, %v; want %q, nil", p[:n], err, want)
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Errorf("after the only row: %d, %v; want 0, EOF", n, err)
	}
}

func TestCopyReaderLargeBuffer(t *testing.T) {
	const n = 20000 // about 500 KB of COPY text
	want := expectedCopy(n)
	got := make(chan string, 1)
	go func() {
		var out bytes.Buffer
		_, _ = io.Copy(&out, NewTextRowReader(&seqRows{n: n})) // bytes.Buffer.ReadFrom: ever larger reads
		got <- out.String()
	}()
	select {
	case s := <-got:
		if s != want {
			t.Errorf("copied %d bytes, want %d", len(s), len(want))
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("copyReader.Read did not return for a read buffer larger than 64 KiB")
	}
}
