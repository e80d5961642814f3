package clickbench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/driver"
)

// Source yields the rows of a real hits file, with the same value types as
// the generator's (int64 for the integer columns, strings for the others,
// dates as "2013-07-15", times as "2013-07-15 10:11:12"). After Next returns
// false, Err says whether the file ended or a row was bad; a bad row stops
// the source, with an error naming the file, the line (TSV, CSV) or the row
// group and row (Parquet), and the column.
type Source interface {
	driver.RowSource
	Err() error
	Close() error
}

// OpenSource opens one of ClickBench's hits files: a path or an http(s) URL
// whose name ends in .tsv (ClickHouse's TabSeparated, as ClickBench's
// hits.tsv), .csv (RFC 4180, as hits.csv), or .parquet (as hits.parquet and
// its partitions), optionally .tsv.gz or .csv.gz (gunzipped on the fly).
// TSV and CSV are streamed, over HTTP too; a Parquet file is read by row
// group from its footer, so one from a URL is downloaded to a temporary file
// first (removed by Close). A first line whose first field is "WatchID" is
// taken for a header and skipped.
func OpenSource(ctx context.Context, pathOrURL string) (Source, error) {
	name, remote := pathOrURL, false
	if u, err := url.Parse(pathOrURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		remote = true
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		name = u.String() // no credentials in errors
	}
	base := name
	if remote {
		u, _ := url.Parse(name)
		base = u.Path
	}
	gz := strings.HasSuffix(base, ".gz")
	base = strings.TrimSuffix(base, ".gz")
	var format string
	for _, ext := range []string{".tsv", ".csv", ".parquet"} {
		if strings.HasSuffix(base, ext) {
			format = ext
		}
	}
	switch {
	case format == "":
		return nil, fmt.Errorf("%s: not a hits file: the name must end in .tsv, .csv, .parquet, .tsv.gz or .csv.gz", name)
	case format == ".parquet" && gz:
		return nil, fmt.Errorf("%s: a gzipped Parquet file: Parquet compresses its pages itself, unzip it first", name)
	}
	body, err := open(ctx, pathOrURL, name, remote)
	if err != nil {
		return nil, err
	}
	if format == ".parquet" {
		return openParquet(body, name, remote)
	}
	var r io.Reader = body
	closer := body.Close
	if gz {
		z, err := gzip.NewReader(body)
		if err != nil {
			body.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r = z
		closer = func() error { return errors.Join(z.Close(), body.Close()) }
	}
	return newTextSource(r, name, format == ".tsv", closer), nil
}

// newTextSource reads TSV (tsv) or CSV from r; closer closes what r reads.
func newTextSource(r io.Reader, name string, tsv bool, closer func() error) *textSource {
	s := &textSource{name: name, close: closer, vals: make([]any, len(columns))}
	if tsv {
		s.br = bufio.NewReaderSize(r, 64<<10)
	} else {
		s.cr = csv.NewReader(bufio.NewReaderSize(r, 64<<10))
		s.cr.FieldsPerRecord = -1 // counted here, to say which line is short
		s.cr.ReuseRecord = true
	}
	return s
}

func open(ctx context.Context, pathOrURL, name string, remote bool) (io.ReadCloser, error) {
	if !remote {
		return boundfile.Open(pathOrURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pathOrURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, scrubURL(err, pathOrURL, name))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: HTTP %s", name, resp.Status)
	}
	return resp.Body, nil
}

// scrubURL keeps the URL's credentials and query out of net/http's errors.
func scrubURL(err error, raw, safe string) error {
	if raw == safe {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), raw, safe))
}

// kind is how a column's values are read and checked.
type kind int

const (
	kText kind = iota
	kInt16
	kInt32
	kInt64
	kDate
	kTime
	kChar
)

var columnKinds = func() (k [len(columns)]kind) {
	for i, c := range columns {
		k[i] = map[string]kind{"TEXT": kText, "VARCHAR(255)": kText, "SMALLINT": kInt16, "INTEGER": kInt32,
			"BIGINT": kInt64, "Date": kDate, "TIMESTAMP": kTime, "CHAR": kChar}[c[1]]
	}
	return
}()

var typeNames = map[kind]string{kInt16: "SMALLINT", kInt32: "INTEGER", kInt64: "BIGINT", kDate: "date", kTime: "timestamp", kChar: "CHAR"}

func bits(k kind) int { return map[kind]int{kInt16: 16, kInt32: 32, kInt64: 64}[k] }

// convertText turns one field's text into the column's value.
func convertText(col int, s string) (any, error) {
	switch k := columnKinds[col]; k {
	case kText:
		return s, nil
	case kInt16, kInt32, kInt64:
		n, err := strconv.ParseInt(s, 10, bits(k))
		if err != nil {
			return nil, fmt.Errorf("%q is not a valid %s", s, typeNames[k])
		}
		return n, nil
	case kDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return nil, fmt.Errorf("%q is not a date (2013-07-15)", s)
		}
		return s, nil
	case kTime:
		if _, err := time.Parse(time.DateTime, s); err != nil {
			return nil, fmt.Errorf("%q is not a timestamp (2013-07-15 10:11:12)", s)
		}
		return s, nil
	default: // kChar
		if len([]rune(s)) != 1 {
			return nil, fmt.Errorf("%q is not one character", s)
		}
		return s, nil
	}
}

// textSource reads TSV (br) or CSV (cr).
type textSource struct {
	name   string
	br     *bufio.Reader
	cr     *csv.Reader
	close  func() error
	line   int64
	line0  []byte
	fields []string
	vals   []any
	err    error
	done   bool
}

func (s *textSource) Next() bool {
	if s.done {
		return false
	}
	for {
		fields, err := s.read()
		if err != nil {
			s.done = true
			if err != io.EOF {
				s.err = err
			}
			return false
		}
		if s.line == 1 && len(fields) > 0 && fields[0] == "WatchID" {
			continue // a header
		}
		if len(fields) != len(columns) {
			return s.fail(fmt.Errorf("%s:%d: %d columns, hits has %d", s.name, s.line, len(fields), len(columns)))
		}
		for i, f := range fields {
			v, err := convertText(i, f)
			if err != nil {
				return s.fail(fmt.Errorf("%s:%d: column %s: %v", s.name, s.line, columns[i][0], err))
			}
			s.vals[i] = v
		}
		return true
	}
}

func (s *textSource) fail(err error) bool {
	s.err, s.done = err, true
	return false
}

// read returns the next line's fields, unescaped; its line number is s.line.
func (s *textSource) read() ([]string, error) {
	if s.cr != nil {
		rec, err := s.cr.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %v", s.name, pe.StartLine, pe.Err)
			}
			if err != io.EOF {
				err = fmt.Errorf("%s: %w", s.name, err)
			}
			return nil, err
		}
		line, _ := s.cr.FieldPos(0)
		s.line = int64(line)
		return rec, nil
	}
	line, err := s.readLine()
	if err != nil {
		return nil, err
	}
	s.line++
	s.fields = s.fields[:0]
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			s.fields = append(s.fields, unescapeTSV(line))
			return s.fields, nil
		}
		s.fields = append(s.fields, unescapeTSV(line[:i]))
		line = line[i+1:]
	}
}

// readLine returns the next line without its newline; a last line without
// one counts too.
func (s *textSource) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.line0 = append(s.line0[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = s.br.ReadSlice('\n')
			s.line0 = append(s.line0, line...)
		}
		line = s.line0
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("%s:%d: %w", s.name, s.line+1, err)
		}
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), nil
}

// unescapeTSV undoes ClickHouse's TabSeparated escaping: \b \f \r \n \t \0
// and a backslash before any other character, which stands for it (\\ \').
func unescapeTSV(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch c = b[i]; c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'r':
			c = '\r'
		case 'n':
			c = '\n'
		case 't':
			c = '\t'
		case '0':
			c = 0
		}
		out = append(out, c)
	}
	return string(out)
}

// EscapeTSV escapes a value as ClickHouse writes it in TabSeparated.
func EscapeTSV(s string) string {
	return strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\b", `\b`, "\f", `\f`, "\x00", `\0`, "'", `\'`).Replace(s)
}

// AppendTSV appends one row of int64 and string values as a line of
// ClickHouse's TabSeparated, the format of ClickBench's hits.tsv.
func AppendTSV(b []byte, vals []any) []byte {
	for i, v := range vals {
		if i > 0 {
			b = append(b, '\t')
		}
		if n, ok := v.(int64); ok {
			b = strconv.AppendInt(b, n, 10)
		} else {
			b = append(b, EscapeTSV(fmt.Sprint(v))...)
		}
	}
	return append(b, '\n')
}

func (s *textSource) Values() []any { return s.vals }
func (s *textSource) Err() error    { return s.err }
func (s *textSource) Close() error  { return s.close() }

// parquetSource reads hits from a Parquet file, row group by row group.
type parquetSource struct {
	name    string
	file    *os.File
	temp    bool
	pf      *parquet.File
	leaf    []int // hits column → the file's leaf column
	convert []func(parquet.Value) (any, error)
	group   int
	rows    parquet.Rows
	buf     []parquet.Row
	n, at   int
	row     int64 // in the current group, 1-based
	vals    []any
	err     error
	done    bool
}

func openParquet(body io.ReadCloser, name string, remote bool) (Source, error) {
	f, ok := body.(*os.File)
	temp := false
	if !ok {
		// Parquet's footer is at the end: keep the download to seek in it.
		tmp, err := os.CreateTemp("", "fairbench-hits-*.parquet")
		if err != nil {
			body.Close()
			return nil, err
		}
		_, err = io.Copy(tmp, body)
		body.Close()
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("%s: downloading: %w", name, err)
		}
		f, temp = tmp, true
	}
	s := &parquetSource{name: name, file: f, temp: temp, vals: make([]any, len(columns)), buf: make([]parquet.Row, 256)}
	if err := s.init(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *parquetSource) init() error {
	st, err := s.file.Stat()
	if err != nil {
		return err
	}
	s.pf, err = parquet.OpenFile(s.file, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	leaves := map[string]int{}
	for i, path := range s.pf.Schema().Columns() {
		leaves[strings.ToLower(strings.Join(path, "."))] = i
	}
	for i, c := range columns {
		j, ok := leaves[strings.ToLower(c[0])]
		if !ok {
			return fmt.Errorf("%s: no column %s", s.name, c[0])
		}
		leaf, _ := s.pf.Schema().Lookup(s.pf.Schema().Columns()[j]...)
		conv, err := parquetConverter(i, leaf.Node.Type())
		if err != nil {
			return fmt.Errorf("%s: column %s: %v", s.name, c[0], err)
		}
		s.leaf = append(s.leaf, j)
		s.convert = append(s.convert, conv)
	}
	return nil
}

// parquetConverter returns how to turn column col's Parquet values into its
// value. ClickBench's hits.parquet stores EventTime and the other times as
// int64 seconds since the epoch, EventDate as uint16 days since the epoch,
// and strings as BYTE_ARRAY without a UTF8 annotation; TIMESTAMP and DATE
// annotations are honoured too.
func parquetConverter(col int, typ parquet.Type) (func(parquet.Value) (any, error), error) {
	k := columnKinds[col]
	var unit int64 = 1 // of a time column's integers, per second
	unsigned := false
	if lt := typ.LogicalType(); lt != nil {
		switch x := lt.Value.(type) {
		case *format.TimestampType:
			switch x.Unit.Value.(type) {
			case *format.MilliSeconds:
				unit = 1e3
			case *format.MicroSeconds:
				unit = 1e6
			case *format.NanoSeconds:
				unit = 1e9
			}
		case *format.IntType:
			unsigned = !x.IsSigned
		}
	}
	integer := func(v parquet.Value) (int64, error) {
		switch v.Kind() {
		case parquet.Int32:
			if unsigned {
				return int64(v.Uint32()), nil
			}
			return int64(v.Int32()), nil
		case parquet.Int64:
			if unsigned && v.Int64() < 0 {
				return 0, fmt.Errorf("%d is out of range", v.Uint64())
			}
			return v.Int64(), nil
		case parquet.Boolean:
			return int64(b2i(v.Boolean())), nil
		}
		return 0, fmt.Errorf("a %s value where an integer was expected", v.Kind())
	}
	bytesKind := func(v parquet.Value) bool {
		return v.Kind() == parquet.ByteArray || v.Kind() == parquet.FixedLenByteArray
	}
	switch k {
	case kText, kChar:
		return func(v parquet.Value) (any, error) {
			if !bytesKind(v) {
				return nil, fmt.Errorf("a %s value where a string was expected", v.Kind())
			}
			if k == kChar {
				return convertText(col, string(v.ByteArray()))
			}
			return string(v.ByteArray()), nil
		}, nil
	case kInt16, kInt32, kInt64:
		lim := int64(1)<<(bits(k)-1) - 1
		return func(v parquet.Value) (any, error) {
			n, err := integer(v)
			if err == nil && (n > lim || n < -lim-1) {
				err = fmt.Errorf("%d is out of a %s's range", n, typeNames[k])
			}
			return n, err
		}, nil
	case kDate:
		return func(v parquet.Value) (any, error) {
			if bytesKind(v) {
				return convertText(col, string(v.ByteArray()))
			}
			n, err := integer(v)
			if err != nil {
				return nil, err
			}
			return time.Unix(n*86400, 0).UTC().Format(time.DateOnly), nil
		}, nil
	default: // kTime
		return func(v parquet.Value) (any, error) {
			if bytesKind(v) {
				return convertText(col, string(v.ByteArray()))
			}
			n, err := integer(v)
			if err != nil {
				return nil, err
			}
			return time.Unix(n/unit, 0).UTC().Format(time.DateTime), nil
		}, nil
	}
}

func (s *parquetSource) Next() bool {
	if s.done {
		return false
	}
	for s.at >= s.n {
		if !s.fill() {
			s.done = true
			return false
		}
	}
	row := s.buf[s.at]
	s.at++
	s.row++
	for i, j := range s.leaf {
		var v parquet.Value
		if j < len(row) && row[j].Column() == j {
			v = row[j]
		} else {
			found := false
			for _, x := range row {
				if x.Column() == j {
					v, found = x, true
					break
				}
			}
			if !found {
				return s.fail(fmt.Errorf("%s: row group %d, row %d: no value for column %s", s.name, s.group, s.row, columns[i][0]))
			}
		}
		if v.IsNull() {
			return s.fail(fmt.Errorf("%s: row group %d, row %d: column %s is null", s.name, s.group, s.row, columns[i][0]))
		}
		val, err := s.convert[i](v)
		if err != nil {
			return s.fail(fmt.Errorf("%s: row group %d, row %d: column %s: %v", s.name, s.group, s.row, columns[i][0], err))
		}
		s.vals[i] = val
	}
	return true
}

// fill reads the next rows into buf, moving to the next row group at the end
// of one; false at the end of the file or on an error.
func (s *parquetSource) fill() bool {
	for {
		if s.rows == nil {
			groups := s.pf.RowGroups()
			if s.group >= len(groups) {
				return false
			}
			s.rows = groups[s.group].Rows()
			s.group++ // 1-based in errors
			s.row = 0
		}
		n, err := s.rows.ReadRows(s.buf)
		s.n, s.at = n, 0
		if err == io.EOF {
			s.rows.Close()
			s.rows = nil
			if n == 0 {
				continue
			}
			return true
		}
		if err != nil {
			s.err = fmt.Errorf("%s: row group %d: %w", s.name, s.group, err)
			return false
		}
		if n > 0 {
			return true
		}
	}
}

func (s *parquetSource) fail(err error) bool {
	s.err, s.done = err, true
	return false
}

func (s *parquetSource) Values() []any { return s.vals }
func (s *parquetSource) Err() error    { return s.err }

func (s *parquetSource) Close() error {
	if s.rows != nil {
		s.rows.Close()
		s.rows = nil
	}
	err := s.file.Close()
	if s.temp {
		os.Remove(s.file.Name())
	}
	return err
}
