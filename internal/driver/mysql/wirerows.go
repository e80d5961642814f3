package mysql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// More MySQL column types (the binary protocol's values of each).
const (
	typeTimestamp = 0x07
	typeDate      = 0x0a
	typeTime      = 0x0b
	typeDatetime  = 0x0c
	typeBit       = 0x10
)

// query runs s with args and returns its first result set, read row by row as
// the caller asks: the connection is busy until the rows are closed.
func (w *wire) query(s *wireStmt, args []any) (driver.Rows, error) {
	if w.broken != nil {
		return nil, w.broken
	}
	if err := w.appendExecute(s, args); err != nil {
		return nil, err
	}
	if err := w.send(); err != nil {
		return nil, err
	}
	rs := &wireRows{w: w, s: s}
	p, err := w.readPacket()
	if err != nil {
		return nil, err
	}
	switch p[0] {
	case pktERR:
		return nil, w.serverError(p)
	case pktOK: // no result set
		rs.done = true
		if moreResults(p, false) {
			_, err = w.results(s, false)
		}
		return rs, err
	case 0xfb:
		return nil, w.fail(errors.New("the server asked for a LOCAL INFILE, which fairbench does not send"))
	}
	ncols, _, ok := lenenc(p)
	if !ok || ncols == 0 {
		return nil, w.fail(fmt.Errorf("malformed result set header % x", p[:min(len(p), 16)]))
	}
	// As in results: the definitions may have been left out (MariaDB's
	// cached metadata).
	if p, err = w.readPacket(); err != nil {
		return nil, err
	}
	if p[0] == 3 && len(p) > 4 && string(p[1:4]) == "def" {
		if s.cols, err = w.readColumns(int(ncols), s.cols, p); err != nil {
			return nil, err
		}
		p, err = w.readPacket()
	} else if !w.deprecateEOF {
		if p[0] != pktEOF {
			return nil, w.fail(fmt.Errorf("expected an EOF packet, got % x", p[:min(len(p), 16)]))
		}
		p, err = w.readPacket()
	}
	if err != nil {
		return nil, err
	}
	if int(ncols) != len(s.cols) {
		return nil, w.fail(fmt.Errorf("a result of %d columns, %d defined", ncols, len(s.cols)))
	}
	rs.pending = p
	return rs, nil
}

// wireRows is a result set read from the wire one row at a time.
type wireRows struct {
	w       *wire
	s       *wireStmt
	pending []byte // the first packet after the definitions, not yet handed out
	row     []byte // the current row, valid until the next read
	done    bool
	err     error
}

func (rs *wireRows) Next() bool {
	if rs.done {
		return false
	}
	p := rs.pending
	rs.pending, rs.row = nil, nil
	if p == nil {
		var err error
		if p, err = rs.w.readPacket(); err != nil {
			rs.err, rs.done = err, true
			return false
		}
	}
	switch {
	case p[0] == pktERR:
		rs.err, rs.done = rs.w.serverError(p), true
		return false
	case p[0] == pktEOF && len(p) < maxFrame:
		rs.done = true
		if moreResults(p, !rs.w.deprecateEOF) {
			_, rs.err = rs.w.results(rs.s, false)
		}
		return false
	}
	rs.row = p
	return true
}

func (rs *wireRows) Scan(dest ...any) error {
	if rs.row == nil {
		return errors.New("Scan without a row: call Next first")
	}
	cols := rs.s.cols
	if len(dest) != len(cols) {
		return fmt.Errorf("%d destinations for %d columns", len(dest), len(cols))
	}
	p := rs.row
	nullBytes := (len(cols) + 7 + 2) / 8
	if len(p) < 1+nullBytes {
		return errMalformedRow
	}
	pos := 1 + nullBytes
	for i, c := range cols {
		var v any
		if bit := i + 2; p[1+bit/8]&(1<<(bit%8)) == 0 {
			var n int
			var err error
			if v, n, err = binaryValue(p[pos:], c); err != nil {
				return fmt.Errorf("column %q: %w", c.name, err)
			}
			pos += n
		}
		if err := driver.Assign(dest[i], v, c.name); err != nil {
			return err
		}
	}
	return nil
}

func (rs *wireRows) Err() error { return rs.err }

func (rs *wireRows) Close() error {
	for rs.Next() {
	}
	return rs.err
}

// binaryValue decodes one value of a binary row: the value and the bytes it took.
func binaryValue(b []byte, c column) (any, int, error) {
	fixed := func(size int) (any, int, error) {
		n, err := fixedInt(b, size, c.unsigned)
		if err != nil && c.unsigned && size == 8 && len(b) >= 8 {
			return binary.LittleEndian.Uint64(b), 8, nil
		}
		return n, size, err
	}
	switch c.typ {
	case typeTiny:
		return fixed(1)
	case typeShort, typeYear:
		return fixed(2)
	case typeLong, typeInt24:
		return fixed(4)
	case typeLongLong:
		return fixed(8)
	case typeFloat:
		if len(b) < 4 {
			return nil, 0, errMalformedRow
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(b))
		// The shortest decimal form of the float32, as the server shows it.
		v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
		return v, 4, nil
	case typeDouble:
		if len(b) < 8 {
			return nil, 0, errMalformedRow
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8, nil
	case typeDate, typeDatetime, typeTimestamp:
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, 0, errMalformedRow
		}
		n := int(b[0])
		d := b[1:]
		var y, mo, day, h, mi, sec, us int
		if n >= 4 {
			y, mo, day = int(binary.LittleEndian.Uint16(d)), int(d[2]), int(d[3])
		}
		if n >= 7 {
			h, mi, sec = int(d[4]), int(d[5]), int(d[6])
		}
		if n >= 11 {
			us = int(binary.LittleEndian.Uint32(d[7:]))
		}
		if n == 0 || y == 0 && mo == 0 && day == 0 {
			return time.Time{}, 1 + n, nil // the zero date
		}
		return time.Date(y, time.Month(mo), day, h, mi, sec, us*1000, time.UTC), 1 + n, nil
	case typeTime:
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, 0, errMalformedRow
		}
		n := int(b[0])
		if n < 8 {
			return "00:00:00", 1 + n, nil
		}
		d := b[1:]
		sign := ""
		if d[0] == 1 {
			sign = "-"
		}
		hours := int(binary.LittleEndian.Uint32(d[1:]))*24 + int(d[5])
		s := fmt.Sprintf("%s%02d:%02d:%02d", sign, hours, d[6], d[7])
		if n >= 12 {
			s += fmt.Sprintf(".%06d", binary.LittleEndian.Uint32(d[8:]))
		}
		return s, 1 + n, nil
	}
	// Everything else is length-encoded bytes: DECIMAL in its exact text,
	// strings, BLOBs, BIT, ENUM, SET, JSON, GEOMETRY.
	n, size, ok := lenenc(b)
	if !ok || n > uint64(len(b)) || len(b) < size+int(n) {
		if len(b) > 0 && b[0] == 0xfb {
			return nil, 1, nil
		}
		return nil, 0, errMalformedRow
	}
	v := b[size : size+int(n)]
	if c.binary || c.typ == typeBit {
		return v, size + int(n), nil
	}
	return string(v), size + int(n), nil
}
