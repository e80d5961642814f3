package postgres

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fairbench/fairbench/internal/driver"
)

// Both client paths read result columns in PostgreSQL's text format and scan
// them here, by the column's type, through driver.Assign.

// field is what scanning a column needs.
type field struct {
	name string
	oid  uint32
}

// Type OIDs (pg_type) the text decoding knows; any other type is a string.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidOID         = 26
	oidFloat4      = 700
	oidFloat8      = 701
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidNumeric     = 1700
)

// textValue decodes one text-format column: nil for NULL, int64, float64,
// bool, time.Time, []byte (bytea), or string (NUMERIC too, exactly).
func textValue(b []byte, oid uint32) (any, error) {
	if b == nil {
		return nil, nil
	}
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidOID:
		return parseInt(b)
	case oidFloat4, oidFloat8:
		return strconv.ParseFloat(string(b), 64)
	case oidBool:
		return len(b) == 1 && b[0] == 't', nil
	case oidDate, oidTimestamp, oidTimestamptz:
		return driver.ParseTime(string(b))
	case oidBytea:
		if len(b) >= 2 && b[0] == '\\' && b[1] == 'x' {
			out := make([]byte, hex.DecodedLen(len(b)-2))
			_, err := hex.Decode(out, b[2:])
			return out, err
		}
		return append([]byte(nil), b...), nil
	}
	return string(b), nil
}

// scanText scans one row's text values into dest.
func scanText(dest []any, vals [][]byte, fields []field) error {
	if len(dest) != len(vals) {
		return fmt.Errorf("%d destinations for %d columns", len(dest), len(vals))
	}
	for i, d := range dest {
		v, err := textValue(vals[i], fields[i].oid)
		if err != nil {
			return fmt.Errorf("column %q: %w", fields[i].name, err)
		}
		if err := driver.Assign(d, v, fields[i].name); err != nil {
			return err
		}
	}
	return nil
}

// pgxRows streams pgx's rows (asked for in text format).
type pgxRows struct {
	rows   pgx.Rows
	fields []field
}

func (r *pgxRows) Next() bool { return r.rows.Next() }

func (r *pgxRows) Scan(dest ...any) error {
	if r.fields == nil {
		for _, fd := range r.rows.FieldDescriptions() {
			r.fields = append(r.fields, field{name: fd.Name, oid: fd.DataTypeOID})
		}
	}
	for _, fd := range r.rows.FieldDescriptions() {
		if fd.Format != pgx.TextFormatCode {
			return fmt.Errorf("column %q came in binary format", fd.Name)
		}
	}
	return scanText(dest, r.rows.RawValues(), r.fields)
}

func (r *pgxRows) Err() error { return r.rows.Err() }

func (r *pgxRows) Close() error {
	r.rows.Close()
	return r.rows.Err()
}

// query sends one statement on the wire and returns its rows, read as the
// caller asks: the connection runs nothing else until they are closed.
func (w *wire) query(name, sql string, args []any, params [][]byte) (driver.Rows, error) {
	if err := w.start(name, sql, args, params); err != nil {
		return nil, err
	}
	if err := w.fe.Flush(); err != nil {
		w.broken = err
		return nil, err
	}
	return &wireRows{w: w}, nil
}

// wireRows reads a statement's replies up to ReadyForQuery, stopping at each
// DataRow.
type wireRows struct {
	w      *wire
	fields []field
	vals   [][]byte // the current row's columns, valid until the next read
	pgErr  error
	err    error
	done   bool
}

func (r *wireRows) Next() bool {
	for !r.done {
		typ, body, err := r.w.in.next()
		if err != nil {
			r.w.broken = err
			r.err, r.done = err, true
			return false
		}
		switch typ {
		case 'T': // RowDescription
			var m pgproto3.RowDescription
			if err := m.Decode(body); err != nil {
				r.w.broken = err
				r.err, r.done = err, true
				return false
			}
			r.fields = r.fields[:0]
			for _, f := range m.Fields {
				r.fields = append(r.fields, field{name: string(f.Name), oid: f.DataTypeOID})
			}
		case 'D': // DataRow
			if r.pgErr != nil {
				continue
			}
			if err := r.decodeRow(body); err != nil {
				r.w.broken = err
				r.err, r.done = err, true
				return false
			}
			return true
		case 'E': // ErrorResponse
			if r.pgErr == nil {
				var m pgproto3.ErrorResponse
				if err := m.Decode(body); err != nil {
					r.w.broken = err
					r.err, r.done = err, true
					return false
				}
				r.pgErr = pgconn.ErrorResponseToPgError(&m)
			}
		case 'S': // ParameterStatus
			var m pgproto3.ParameterStatus
			if err := m.Decode(body); err == nil && m.Name == "standard_conforming_strings" {
				r.w.standardStrings = m.Value == "on"
			}
		case 'Z': // ReadyForQuery
			r.done = true
			r.err = r.pgErr
		}
	}
	return false
}

// decodeRow splits a DataRow's body into its columns (nil for NULL).
func (r *wireRows) decodeRow(body []byte) error {
	if len(body) < 2 {
		return errors.New("a DataRow message too short")
	}
	n := int(binary.BigEndian.Uint16(body))
	if n != len(r.fields) {
		return fmt.Errorf("a DataRow of %d columns for %d described", n, len(r.fields))
	}
	r.vals = r.vals[:0]
	pos := 2
	for range n {
		if pos+4 > len(body) {
			return errors.New("a DataRow message too short")
		}
		size := int(int32(binary.BigEndian.Uint32(body[pos:])))
		pos += 4
		if size < 0 {
			r.vals = append(r.vals, nil)
			continue
		}
		if pos+size > len(body) {
			return errors.New("a DataRow column longer than its message")
		}
		r.vals = append(r.vals, body[pos:pos+size:pos+size])
		pos += size
	}
	return nil
}

func (r *wireRows) Scan(dest ...any) error {
	if r.done {
		return errors.New("Scan without a row")
	}
	return scanText(dest, r.vals, r.fields)
}

func (r *wireRows) Err() error { return r.err }

// Close reads the rest of the replies, so the connection is ready again.
func (r *wireRows) Close() error {
	for r.Next() {
	}
	return r.err
}
