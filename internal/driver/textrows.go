package driver

import (
	"fmt"
	"io"
	"strconv"
)

// The text format of PostgreSQL's COPY and MySQL's LOAD DATA: one line per
// row, columns separated by tabs, NULL as \N, backslash, tab, newline and
// carriage return escaped with a backslash. Both engines' bulk paths read it.

// NewTextRowReader reads rows as text lines.
func NewTextRowReader(rows RowSource) io.Reader { return &textRowReader{rows: rows} }

// textRowReader renders rows as text lines on demand, so a load of any size
// needs only one buffer.
type textRowReader struct {
	rows RowSource
	buf  []byte
	off  int
	done bool
}

func (r *textRowReader) Read(p []byte) (int, error) {
	// Fill up to what the caller asked for, but never past the 64 KiB the inner
	// loop buffers: a larger read gets what is there, not an endless wait.
	for len(r.buf)-r.off < len(p) && len(r.buf)-r.off < 64<<10 && !r.done {
		if r.off > 0 {
			r.buf = append(r.buf[:0], r.buf[r.off:]...)
			r.off = 0
		}
		for i := 0; i < 256 && len(r.buf) < 64<<10; i++ {
			if !r.rows.Next() {
				r.done = true
				break
			}
			r.buf = appendTextRow(r.buf, r.rows.Values())
		}
	}
	if r.off >= len(r.buf) {
		return 0, io.EOF
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// appendTextRow appends one row as a text line.
func appendTextRow(b []byte, vals []any) []byte {
	for i, v := range vals {
		if i > 0 {
			b = append(b, '\t')
		}
		switch x := v.(type) {
		case nil:
			b = append(b, '\\', 'N')
		case int64:
			b = strconv.AppendInt(b, x, 10)
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		case float64:
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		case string:
			for j := 0; j < len(x); j++ {
				switch ch := x[j]; ch {
				case '\\':
					b = append(b, '\\', '\\')
				case '\t':
					b = append(b, '\\', 't')
				case '\n':
					b = append(b, '\\', 'n')
				case '\r':
					b = append(b, '\\', 'r')
				default:
					b = append(b, ch)
				}
			}
		default:
			b = append(b, fmt.Sprint(x)...)
		}
	}
	return append(b, '\n')
}
