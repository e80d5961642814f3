package clickhouse

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// Environment implements driver.Environment: version, the memory and thread
// limits a query runs under, and every setting changed from its default.
func (c *client) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: "clickhouse", Driver: clientPath}
	env.Set("tls", c.cfg.tls)
	if err := c.conn.QueryRow(ctx, "SELECT version()").Scan(&env.Version); err != nil {
		return result.Database{}, c.cfg.secrets.ScrubErr(err)
	}
	rows, err := c.conn.Query(ctx, "SELECT name, value, changed FROM system.settings WHERE changed OR name IN ('max_threads', 'max_memory_usage')")
	if err != nil {
		return result.Database{}, c.cfg.secrets.ScrubErr(err)
	}
	defer rows.Close()
	changed := map[string]any{}
	for rows.Next() {
		var name, value string
		var ch uint8
		if err := rows.Scan(&name, &value, &ch); err != nil {
			return result.Database{}, c.cfg.secrets.ScrubErr(err)
		}
		if name == "max_threads" || name == "max_memory_usage" {
			env.Set(name, value)
		}
		if ch != 0 && !secretSetting(name) {
			changed[name] = value
		}
	}
	if err := rows.Err(); err != nil {
		return result.Database{}, c.cfg.secrets.ScrubErr(err)
	}
	// The client sends max_execution_time from the context's deadline: a
	// setting of this query, not of the server.
	if _, ok := ctx.Deadline(); ok {
		delete(changed, "max_execution_time")
	}
	env.Set("settings_changed", changed)
	if s := c.serverSettings(ctx); len(s) > 0 {
		env.Set("server_settings", s)
	}
	return env, nil
}

// serverSettings reads the server's memory limit and caches
// (system.server_settings, from ClickHouse 23.3; nil before), as texts in
// the map a results file reads back, which uncompressedCache reads.
func (c *client) serverSettings(ctx context.Context) map[string]any {
	rows, err := c.conn.Query(ctx, "SELECT name, value FROM system.server_settings WHERE name IN ('"+strings.Join(serverSettingNames, "', '")+"')")
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]any{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil
		}
		out[name] = value
	}
	if rows.Err() != nil {
		return nil
	}
	return out
}

// secretSetting keeps credentials some settings may hold out of the record.
func secretSetting(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || strings.Contains(n, "secret") || strings.Contains(n, "key")
}

// Dialect implements driver.SQL.
func (s *conn) Dialect() string { return "clickhouse" }

// Exec implements driver.SQL. INSERT ... VALUES with inline values hangs
// against 18.16 through this client: load rows with BulkLoad.
func (s *conn) Exec(ctx context.Context, sql string) error {
	return s.c.cfg.secrets.ScrubErr(s.c.conn.Exec(s.c.ids.tag(ctx), sql))
}

// QueryInt64 implements driver.SQL.
func (s *conn) QueryInt64(ctx context.Context, sql string, args ...any) (int64, error) {
	rows, err := s.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("query returned no rows")
	}
	var v any
	if err := rows.Scan(&v); err != nil {
		return 0, err
	}
	var n int64
	if v != nil {
		if err := driver.Assign(&n, v, "1"); err != nil {
			return 0, err
		}
	}
	return n, rows.Close()
}

// Query implements driver.SQL.
func (s *conn) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	r, err := s.c.conn.Query(s.c.ids.tag(ctx), placeholders(sql), args...)
	if err != nil {
		return nil, s.c.cfg.secrets.ScrubErr(err)
	}
	types := r.ColumnTypes()
	return &rows{s: s, r: r, dest: scanDest(types), names: r.Columns()}, nil
}

// Prepare implements driver.SQL. The client binds parameters itself (the
// native protocol of 18.16 has no server-side prepared statements), so a
// statement is its rewritten text.
func (s *conn) Prepare(_ context.Context, sql string) (driver.Stmt, error) {
	return &stmt{s: s, sql: placeholders(sql)}, nil
}

type stmt struct {
	s   *conn
	sql string
}

func (t *stmt) Exec(ctx context.Context, args ...any) error {
	return t.s.c.cfg.secrets.ScrubErr(t.s.c.conn.Exec(t.s.c.ids.tag(ctx), t.sql, args...))
}

func (t *stmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	return t.s.QueryInt64(ctx, t.sql, args...)
}

func (t *stmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	return t.s.Query(ctx, t.sql, args...)
}

// placeholders rewrites PostgreSQL's $1, $2 ... into the client's positional
// ?, outside quoted strings and identifiers. Parameters are used in order.
func placeholders(sql string) string {
	if !strings.Contains(sql, "$") {
		return sql
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(sql) {
				b.WriteByte(c)
				i++
				c = sql[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '$' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			for i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' {
				i++
			}
			b.WriteByte('?')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

type rows struct {
	s     *conn
	r     chdriver.Rows
	dest  []any
	names []string
	err   error
}

func (r *rows) Next() bool { return r.err == nil && r.r.Next() }

func (r *rows) Scan(dest ...any) error {
	if len(dest) != len(r.dest) {
		return fmt.Errorf("scan of %d columns into %d destinations", len(r.dest), len(dest))
	}
	if err := r.r.Scan(r.dest...); err != nil {
		return r.s.c.cfg.secrets.ScrubErr(err)
	}
	for i, d := range r.dest {
		if err := driver.Assign(dest[i], normalize(reflect.ValueOf(d).Elem().Interface()), r.names[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *rows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.s.c.cfg.secrets.ScrubErr(r.r.Err())
}

func (r *rows) Close() error { return r.s.c.cfg.secrets.ScrubErr(r.r.Close()) }

// normalize turns a ClickHouse Go value into one driver.Assign takes.
func normalize(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	case float32:
		return float64(x)
	case decimal.Decimal:
		return x.String()
	case *big.Int:
		return x.String()
	case string, []byte, bool, float64, time.Time:
		return x
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		return normalize(rv.Elem().Interface())
	}
	return fmt.Sprint(v)
}

// BulkLoad implements driver.BulkLoader through one native INSERT that
// sends blocks of up to batchRows rows. The column list is always explicit: 18.16 fails a batch
// INSERT without one. Values (int64, string or nil) are converted to each
// column's type as system.columns names it.
func (s *conn) BulkLoad(ctx context.Context, table string, columns []string, src driver.RowSource, truncate bool) (int64, error) {
	types, err := s.columnTypes(ctx, table, columns)
	if err != nil {
		return 0, err
	}
	if truncate {
		if err := s.Exec(ctx, "TRUNCATE TABLE "+table); err != nil {
			return 0, err
		}
	}
	insert := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ")"
	var sink batchSink = &rowSink{types: types, row: make([]any, len(columns))}
	if cols := columnsFor(types); cols != nil {
		sink = columnSink(cols)
		if ts, ok := newTypedSink(cols, src); ok {
			sink = ts
		}
	}
	// One INSERT streams every block: its columns keep their buffers from
	// block to block (Flush resets them to zero length), where a batch per
	// block grew each column's buffers anew, a fifth of a load's CPU in
	// copying alone.
	batch, err := s.c.conn.PrepareBatch(s.c.ids.tag(ctx), insert)
	if err != nil {
		return 0, s.c.cfg.secrets.ScrubErr(err)
	}
	var n int64
	for {
		inBlock := 0
		for inBlock < batchRows && src.Next() {
			if col, err := sink.add(batch, src); err != nil {
				_ = batch.Abort()
				if col < 0 {
					return n, fmt.Errorf("row %d: %w", n+int64(inBlock)+1, s.c.cfg.secrets.ScrubErr(err))
				}
				return n, fmt.Errorf("row %d, column %s (%s): %w", n+int64(inBlock)+1, columns[col], types[col], err)
			}
			inBlock++
		}
		if inBlock == 0 {
			break
		}
		if col, err := sink.flush(batch); err != nil {
			_ = batch.Abort()
			return n, fmt.Errorf("column %s (%s): %w", columns[col], types[col], s.c.cfg.secrets.ScrubErr(err))
		}
		if err := batch.Flush(); err != nil {
			_ = batch.Abort()
			return n, s.c.cfg.secrets.ScrubErr(err)
		}
		n += int64(inBlock)
		if inBlock < batchRows {
			break
		}
	}
	if err := batch.Send(); err != nil {
		return n, s.c.cfg.secrets.ScrubErr(err)
	}
	return n, nil
}

const batchRows = 100_000

// columnTypes returns the ClickHouse types of table's columns, in order.
func (s *conn) columnTypes(ctx context.Context, table string, columns []string) ([]string, error) {
	db, name := s.c.cfg.database, table
	if d, t, ok := strings.Cut(table, "."); ok {
		db, name = d, t
	}
	db, name = strings.Trim(db, "`\""), strings.Trim(name, "`\"")
	rows, err := s.c.conn.Query(ctx, "SELECT name, type FROM system.columns WHERE database = ? AND table = ?", db, name)
	if err != nil {
		return nil, s.c.cfg.secrets.ScrubErr(err)
	}
	defer rows.Close()
	all := map[string]string{}
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, s.c.cfg.secrets.ScrubErr(err)
		}
		all[n] = t
	}
	if err := rows.Err(); err != nil {
		return nil, s.c.cfg.secrets.ScrubErr(err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("table %s.%s does not exist (or has no columns)", db, name)
	}
	out := make([]string, len(columns))
	for i, c := range columns {
		t, ok := all[strings.Trim(c, "`\"")]
		if !ok {
			return nil, fmt.Errorf("table %s.%s has no column %s", db, name, c)
		}
		out[i] = t
	}
	return out, nil
}

// convert turns a RowSource value into the Go type the client appends to a
// column of type typ.
func convert(v any, typ string) (any, error) {
	if inner, ok := strings.CutPrefix(typ, "Nullable("); ok {
		if v == nil {
			return nil, nil
		}
		c, err := convert(v, strings.TrimSuffix(inner, ")"))
		if err != nil {
			return nil, err
		}
		p := reflect.New(reflect.TypeOf(c))
		p.Elem().Set(reflect.ValueOf(c))
		return p.Interface(), nil
	}
	if inner, ok := strings.CutPrefix(typ, "LowCardinality("); ok {
		return convert(v, strings.TrimSuffix(inner, ")"))
	}
	if v == nil {
		return nil, fmt.Errorf("NULL for a column that is not Nullable")
	}
	var i int64
	var s string
	isInt := false
	switch x := v.(type) {
	case int64:
		i, isInt, s = x, true, strconv.FormatInt(x, 10)
	case string:
		s = x
	default:
		return nil, fmt.Errorf("value of type %T (want int64, string or nil)", v)
	}
	parseInt := func(bits int) (int64, error) {
		if isInt {
			return i, nil
		}
		return strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	}
	parseUint := func(bits int) (uint64, error) {
		if isInt {
			if i < 0 {
				return 0, fmt.Errorf("%d is negative", i)
			}
			return uint64(i), nil
		}
		return strconv.ParseUint(strings.TrimSpace(s), 10, bits)
	}
	switch {
	case typ == "String" || strings.HasPrefix(typ, "FixedString("):
		return s, nil
	case typ == "Int8":
		n, err := parseInt(8)
		return int8(n), err
	case typ == "Int16":
		n, err := parseInt(16)
		return int16(n), err
	case typ == "Int32":
		n, err := parseInt(32)
		return int32(n), err
	case typ == "Int64":
		return parseInt(64)
	case typ == "UInt8":
		n, err := parseUint(8)
		return uint8(n), err
	case typ == "UInt16":
		n, err := parseUint(16)
		return uint16(n), err
	case typ == "UInt32":
		n, err := parseUint(32)
		return uint32(n), err
	case typ == "UInt64":
		return parseUint(64)
	case typ == "Float32":
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case typ == "Float64":
		return strconv.ParseFloat(s, 64)
	case strings.HasPrefix(typ, "Decimal"):
		return decimal.NewFromString(s)
	case typ == "Date":
		return time.Parse("2006-01-02", s)
	case typ == "DateTime" || strings.HasPrefix(typ, "DateTime("):
		if isInt {
			return time.Unix(i, 0).UTC(), nil
		}
		return time.Parse("2006-01-02 15:04:05", s)
	}
	return s, nil
}
