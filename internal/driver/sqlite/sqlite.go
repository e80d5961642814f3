// Package sqlite is fairbench's embedded default target: SQLite through the pure-Go
// modernc.org/sqlite, so the demo and quick studies need no server. A URL such as
// sqlite:bench.db?journal_mode=WAL&synchronous=NORMAL names the file and the pragmas
// every connection applies; each client gets its own connection to the file.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	sqlite "modernc.org/sqlite"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/sqldb"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "sqlite:", "sqlite3:") }

// pragmas users may set from the URL, with the values SQLite accepts for each
// (words case-insensitive). An allowlist catches typos early and keeps the URL
// from injecting arbitrary SQL into every connection; checking values here
// matters because SQLite ignores a value it does not know (journal_mode=NOPE
// leaves the journal as it was, silently).
var pragmas = map[string]pragmaDomain{
	"journal_mode":       words("DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"),
	"synchronous":        words("OFF", "NORMAL", "FULL", "EXTRA", "0", "1", "2", "3"),
	"cache_size":         integer(true, "pages, or -KiB when negative"),
	"busy_timeout":       integer(false, "milliseconds"),
	"mmap_size":          integer(false, "bytes"),
	"temp_store":         words("DEFAULT", "FILE", "MEMORY", "0", "1", "2"),
	"locking_mode":       words("NORMAL", "EXCLUSIVE"),
	"page_size":          words("512", "1024", "2048", "4096", "8192", "16384", "32768", "65536"),
	"wal_autocheckpoint": integer(true, "pages, 0 or less to disable"),
	"foreign_keys":       words("ON", "OFF", "TRUE", "FALSE", "YES", "NO", "1", "0"),
	"cache_spill":        integer(false, "pages, or ON/OFF", "ON", "OFF", "TRUE", "FALSE", "YES", "NO"),
	"threads":            integer(false, "helper threads"),
}

// pragmaDomain is what a pragma accepts: one of a list of words, or an integer.
type pragmaDomain struct {
	words    []string
	integer  bool
	negative bool
	unit     string
}

func words(w ...string) pragmaDomain { return pragmaDomain{words: w} }

func integer(negative bool, unit string, w ...string) pragmaDomain {
	return pragmaDomain{integer: true, negative: negative, unit: unit, words: w}
}

// check says whether v is in the domain.
func (d pragmaDomain) check(v string) bool {
	for _, w := range d.words {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	if !d.integer {
		return false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && (d.negative || n >= 0)
}

// allowed describes the domain for an error message.
func (d pragmaDomain) allowed() string {
	var parts []string
	if d.integer {
		kind := "a non-negative integer"
		if d.negative {
			kind = "an integer"
		}
		parts = append(parts, kind+" ("+d.unit+")")
	}
	if len(d.words) > 0 {
		parts = append(parts, strings.Join(d.words, ", "))
	}
	return strings.Join(parts, " or ")
}

// Config is a parsed sqlite: URL.
type Config struct {
	Path    string
	Pragmas [][2]string // in a stable order, busy_timeout first
}

// ParseURL parses sqlite:PATH?pragma=value&... (also sqlite://PATH and sqlite:///abs/PATH).
func ParseURL(raw string) (Config, error) {
	if i := strings.IndexByte(raw, 0); i >= 0 {
		// SQLite's C API would end the file name at the NUL: a different file.
		return Config{}, fmt.Errorf("sqlite URL %q has a NUL byte after it (offset %d): a file name cannot hold one", driver.Redacted(raw[:i]), i)
	}
	rest, ok := strings.CutPrefix(raw, "sqlite3:")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "sqlite:")
	}
	if !ok {
		return Config{}, fmt.Errorf("%q is not a sqlite: URL", raw)
	}
	rest = strings.TrimPrefix(rest, "//")
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return Config{}, fmt.Errorf("%q names no database file: use e.g. sqlite:bench.db", raw)
	}
	if path == ":memory:" {
		return Config{}, fmt.Errorf("%q: an in-memory database is private to one connection, so clients could not share it; use a file", raw)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Config{}, fmt.Errorf("%q: bad query string: %v", raw, err)
	}
	cfg := Config{Path: path}
	busy := "5000"
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		dom, ok := pragmas[lk]
		if !ok {
			return Config{}, fmt.Errorf("sqlite URL parameter %q is not a supported pragma (supported: %s)", k, strings.Join(pragmaNames(), ", "))
		}
		if len(q[k]) > 1 {
			return Config{}, fmt.Errorf("sqlite URL parameter %s is given %d times: give it once", k, len(q[k]))
		}
		v := q.Get(k)
		if !dom.check(v) {
			return Config{}, fmt.Errorf("sqlite URL parameter %s=%q is not a value SQLite accepts for it: use %s", k, v, dom.allowed())
		}
		if lk == "busy_timeout" {
			busy = v
			continue
		}
		cfg.Pragmas = append(cfg.Pragmas, [2]string{lk, v})
	}
	cfg.Pragmas = append([][2]string{{"busy_timeout", busy}}, cfg.Pragmas...)
	return cfg, nil
}

func pragmaNames() []string {
	out := make([]string, 0, len(pragmas))
	for k := range pragmas {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Driver opens SQLite connections.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "sqlite" }

// InProcess implements driver.InProcess: SQLite runs in fairbench's process.
func (Driver) InProcess() bool { return true }

// Open implements driver.Driver: each session is its own connection to the file.
func (Driver) Open(ctx context.Context, t driver.Target, opts driver.Options) (driver.Client, error) {
	cfg, err := ParseURL(t.URL)
	if err != nil {
		return nil, err
	}
	switch opts.QueryMode {
	case "", "simple", "extended", "prepared":
	default:
		return nil, fmt.Errorf("query mode %q is not one of simple, extended, prepared", opts.QueryMode)
	}
	if dir := filepath.Dir(cfg.Path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("sqlite database %s: directory %s does not exist", cfg.Path, dir)
		}
	}
	prepared := opts.QueryMode == "prepared"
	return driver.NewConnClient(func(ctx context.Context) (driver.Conn, error) {
		return connect(ctx, cfg, prepared)
	}, true), nil
}

// connect opens one connection and applies the URL's pragmas.
func connect(ctx context.Context, cfg Config, prepared bool) (driver.Conn, error) {
	db, err := sql.Open("sqlite", cfg.Path)
	if err != nil {
		return nil, err
	}
	pool, err := sqldb.Open(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", cfg.Path, err)
	}
	for _, p := range cfg.Pragmas {
		if _, err := pool.C.ExecContext(ctx, "PRAGMA "+p[0]+" = "+p[1]); err != nil {
			pool.Close()
			return nil, fmt.Errorf("sqlite %s: PRAGMA %s = %s: %w", cfg.Path, p[0], p[1], err)
		}
	}
	return &conn{pool: pool, c: pool.C, cfg: cfg, prepared: prepared}, nil
}

// conn is one SQLite connection.
type conn struct {
	pool     *sqldb.Conn
	c        *sql.Conn // pool.C
	cfg      Config
	prepared bool
}

// Close implements driver.Conn.
func (c *conn) Close(ctx context.Context) error {
	return c.pool.Close()
}

// Dialect implements driver.SQL.
func (c *conn) Dialect() string { return "sqlite" }

// ClientPath implements driver.Path.
func (c *conn) ClientPath() string { return "modernc sqlite" }

// Query implements driver.SQL.
func (c *conn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	return sqldb.NewRows(c.c.QueryContext(ctx, rewrite(q), args...))
}

// Exec implements driver.SQL.
func (c *conn) Exec(ctx context.Context, q string) error {
	_, err := c.c.ExecContext(ctx, q)
	return err
}

// QueryInt64 implements driver.SQL.
func (c *conn) QueryInt64(ctx context.Context, q string, args ...any) (int64, error) {
	var v sql.NullInt64
	err := c.c.QueryRowContext(ctx, rewrite(q), args...).Scan(&v)
	return v.Int64, err
}

var dollar = regexp.MustCompile(`\$([0-9]+)`)

// rewrite turns PostgreSQL's $n placeholders into SQLite's ?n, which bind by the
// same position.
func rewrite(q string) string { return dollar.ReplaceAllString(q, "?$1") }

// Prepare implements driver.SQL. In prepared mode the statement is compiled once;
// in the other modes SQLite compiles it on every execution, which is what the
// simple and extended protocols cost a server.
func (c *conn) Prepare(ctx context.Context, q string) (driver.Stmt, error) {
	q = rewrite(q)
	if !c.prepared {
		return &textStmt{c: c.c, q: q}, nil
	}
	s, err := c.pool.Prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	return &preparedStmt{s: s}, nil
}

type textStmt struct {
	c *sql.Conn
	q string
}

func (s *textStmt) Exec(ctx context.Context, args ...any) error {
	_, err := s.c.ExecContext(ctx, s.q, args...)
	return err
}

func (s *textStmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	var v sql.NullInt64
	err := s.c.QueryRowContext(ctx, s.q, args...).Scan(&v)
	return v.Int64, err
}

func (s *textStmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	return sqldb.NewRows(s.c.QueryContext(ctx, s.q, args...))
}

type preparedStmt struct{ s *sql.Stmt }

func (s *preparedStmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	return sqldb.NewRows(s.s.QueryContext(ctx, args...))
}

func (s *preparedStmt) Exec(ctx context.Context, args ...any) error {
	_, err := s.s.ExecContext(ctx, args...)
	return err
}

func (s *preparedStmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	var v sql.NullInt64
	err := s.s.QueryRowContext(ctx, args...).Scan(&v)
	return v.Int64, err
}

// SQLite's primary result codes (the low byte of extended codes).
const (
	codeBusy       = 5
	codeLocked     = 6
	codeConstraint = 19
	codeIOErr      = 10
	codeFull       = 13
)

// Classify implements driver.Conn.
func (c *conn) Classify(err error) result.ErrorClass {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case codeBusy, codeLocked:
			return result.ErrBusy
		case codeConstraint:
			return result.ErrConstraint
		}
		return result.ErrOther
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	return result.ErrOther
}

// insertBatch is how many rows one INSERT carries during a bulk load: enough to
// amortise the per-statement cost, well under SQLite's 32766 variable limit.
const insertBatch = 100

// commitEvery bounds the size of one load transaction.
const commitEvery = 200_000

// BulkLoad implements driver.BulkLoader with multi-row INSERTs in large transactions.
func (c *conn) BulkLoad(ctx context.Context, table string, columns []string, rows driver.RowSource, truncate bool) (int64, error) {
	if _, err := c.c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	committed := false
	defer func() {
		if !committed {
			c.c.ExecContext(context.Background(), "ROLLBACK") //nolint:errcheck // best effort after an error
		}
	}()
	if truncate {
		if _, err := c.c.ExecContext(ctx, "DELETE FROM "+quote(table)); err != nil {
			return 0, err
		}
	}
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = quote(col)
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", len(columns)), ",") + ")"
	head := "INSERT INTO " + quote(table) + " (" + strings.Join(cols, ",") + ") VALUES "
	batchStmt, err := c.c.PrepareContext(ctx, head+strings.TrimSuffix(strings.Repeat(row+",", insertBatch), ","))
	if err != nil {
		return 0, err
	}
	defer batchStmt.Close()
	args := make([]any, 0, insertBatch*len(columns))
	var n, inTx int64
	flush := func(full bool) error {
		if len(args) == 0 {
			return nil
		}
		var err error
		if full {
			_, err = batchStmt.ExecContext(ctx, args...)
		} else {
			rowsLeft := len(args) / len(columns)
			_, err = c.c.ExecContext(ctx, head+strings.TrimSuffix(strings.Repeat(row+",", rowsLeft), ","), args...)
		}
		args = args[:0]
		return err
	}
	for rows.Next() {
		args = append(args, rows.Values()...)
		n++
		inTx++
		if len(args) == insertBatch*len(columns) {
			if err := flush(true); err != nil {
				return n, err
			}
			if inTx >= commitEvery {
				if _, err := c.c.ExecContext(ctx, "COMMIT"); err != nil {
					return n, err
				}
				if _, err := c.c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
					committed = true
					return n, err
				}
				inTx = 0
			}
		}
	}
	if err := flush(false); err != nil {
		return n, err
	}
	if _, err := c.c.ExecContext(ctx, "COMMIT"); err != nil {
		return n, err
	}
	committed = true
	return n, nil
}

func quote(ident string) string { return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"` }

// Environment implements driver.Environment.
func (c *conn) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: engineName, Driver: "modernc.org/sqlite (pure Go)"}
	if err := c.c.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&env.Version); err != nil {
		return result.Database{}, err
	}
	settings := map[string]string{}
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size", "mmap_size", "locking_mode", "temp_store", "busy_timeout", "wal_autocheckpoint"} {
		var v string
		if err := c.c.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err == nil {
			settings[p] = v
		}
	}
	env.Settings = settings
	abs, _ := filepath.Abs(c.cfg.Path)
	env.Set("file", abs)
	// The database's size is its pages, those still in the WAL included:
	// in WAL mode the main file holds only what was checkpointed (a freshly
	// loaded database can be one 4 KiB page on disk).
	var pages int64
	pageSize, _ := strconv.ParseInt(settings["page_size"], 10, 64) // read with the pragmas above
	if c.c.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages) == nil && pages > 0 && pageSize > 0 {
		env.SizeBytes = pages * pageSize // for the working-set check
	} else if st, err := os.Stat(c.cfg.Path); err == nil {
		env.SizeBytes = st.Size()
	}
	if env.SizeBytes > 0 {
		env.SizeText = strconv.FormatInt(env.SizeBytes, 10) + " bytes"
	}
	env.Set("tls", map[string]any{"enabled": false})
	return env, nil
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilySQL} }
