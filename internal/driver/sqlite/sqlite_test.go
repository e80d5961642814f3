package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/sqlite"
	"github.com/fairbench/fairbench/internal/result"
)

func TestParseURLPaths(t *testing.T) {
	for _, tc := range []struct{ url, path string }{
		{"sqlite:file.db", "file.db"},
		{"sqlite3:file.db", "file.db"},
		{"sqlite:./data/file.db", "./data/file.db"},
		{"sqlite://rel/path.db", "rel/path.db"},
		{"sqlite:///abs/path.db", "/abs/path.db"},
		{"sqlite:/abs/path.db", "/abs/path.db"},
	} {
		cfg, err := sqlite.ParseURL(tc.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.url, err)
			continue
		}
		if cfg.Path != tc.path {
			t.Errorf("ParseURL(%q).Path = %q, want %q", tc.url, cfg.Path, tc.path)
		}
		// Without pragmas, busy_timeout is still set, to 5000 ms.
		if want := [][2]string{{"busy_timeout", "5000"}}; !reflect.DeepEqual(cfg.Pragmas, want) {
			t.Errorf("ParseURL(%q).Pragmas = %v, want %v", tc.url, cfg.Pragmas, want)
		}
	}
}

func TestParseURLPragmaOrder(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want [][2]string
	}{
		{
			"sqlite:b.db?synchronous=NORMAL&journal_mode=WAL&cache_size=-2000",
			[][2]string{{"busy_timeout", "5000"}, {"cache_size", "-2000"}, {"journal_mode", "WAL"}, {"synchronous", "NORMAL"}},
		},
		{
			"sqlite:b.db?journal_mode=WAL&busy_timeout=100&foreign_keys=ON",
			[][2]string{{"busy_timeout", "100"}, {"foreign_keys", "ON"}, {"journal_mode", "WAL"}},
		},
		{
			"sqlite:b.db?temp_store=MEMORY&busy_timeout=0",
			[][2]string{{"busy_timeout", "0"}, {"temp_store", "MEMORY"}},
		},
		{
			"sqlite:b.db?Journal_Mode=wal", // pragma names are case-insensitive and normalised
			[][2]string{{"busy_timeout", "5000"}, {"journal_mode", "wal"}},
		},
	} {
		for i := 0; i < 20; i++ { // the query is a map: the order must not depend on iteration
			cfg, err := sqlite.ParseURL(tc.url)
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tc.url, err)
			}
			if !reflect.DeepEqual(cfg.Pragmas, tc.want) {
				t.Fatalf("ParseURL(%q).Pragmas = %v, want %v", tc.url, cfg.Pragmas, tc.want)
			}
			if cfg.Path != "b.db" {
				t.Fatalf("ParseURL(%q).Path = %q, want b.db", tc.url, cfg.Path)
			}
		}
	}
}

func TestParseURLRejects(t *testing.T) {
	for _, tc := range []struct {
		url       string
		fragments []string
	}{
		{"sqlite:b.db?journal_mod=WAL", []string{`"journal_mod"`, "journal_mode"}}, // names the typo, lists the supported
		{"sqlite:b.db?attach=x", []string{`"attach"`}},
		{"sqlite:b.db?journal_mode=WAL%3BDROP%20TABLE%20x", []string{"journal_mode"}}, // ;
		{"sqlite:b.db?journal_mode=WAL';--", []string{"journal_mode"}},
		{"sqlite:b.db?synchronous=%27OFF%27", []string{"synchronous"}},
		{"sqlite:b.db?cache_size=1%20OR%201", []string{"cache_size"}},
		{"sqlite:b.db?journal_mode=", []string{"journal_mode"}},
		{"sqlite:b.db?journal_mode=WAL;busy_timeout=1", nil}, // a bare ; in the query string
		{"sqlite::memory:", []string{"memory"}},
		{"sqlite::memory:?journal_mode=WAL", []string{"memory"}},
		{"sqlite:", []string{"no database file"}},
		{"sqlite:?journal_mode=WAL", []string{"no database file"}},
		{"postgres://localhost/db", []string{"not a sqlite"}},
		// Values SQLite would ignore silently are refused, naming the key and
		// what it accepts.
		{"sqlite:b.db?journal_mode=NOPE", []string{`journal_mode="NOPE"`, "DELETE, TRUNCATE, PERSIST, MEMORY, WAL, OFF"}},
		{"sqlite:b.db?synchronous=sometimes", []string{"synchronous", "NORMAL"}},
		{"sqlite:b.db?busy_timeout=-5", []string{"busy_timeout", "non-negative integer"}},
		{"sqlite:b.db?page_size=1000", []string{"page_size", "4096"}},
		{"sqlite:b.db?cache_size=lots", []string{"cache_size", "an integer"}},
		{"sqlite:b.db?foreign_keys=maybe", []string{"foreign_keys", "ON"}},
		{"sqlite:b.db?journal_mode=WAL&journal_mode=OFF", []string{"journal_mode", "2 times"}},
		// A NUL byte would end the file name in SQLite's C API: another file.
		{"sqlite:b.db\x00.other", []string{"NUL byte", `"sqlite:b.db"`}},
		{"sqlite:b.db?journal_mode=WAL\x00", []string{"NUL byte"}},
	} {
		cfg, err := sqlite.ParseURL(tc.url)
		if err == nil {
			t.Errorf("ParseURL(%q) = %+v, want an error", tc.url, cfg)
			continue
		}
		for _, f := range tc.fragments {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("ParseURL(%q) error %q does not mention %q", tc.url, err, f)
			}
		}
	}
}

func connect(t *testing.T, url, mode string) driver.SQL {
	t.Helper()
	d, err := driver.ForURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "sqlite" {
		t.Fatalf("ForURL(%q) = %q driver", url, d.Name())
	}
	ctx := context.Background()
	cl, err := d.Open(ctx, driver.Target{Name: "t", URL: url}, driver.Options{QueryMode: mode})
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", url, mode, err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	c, err := cl.Session(ctx)
	if err != nil {
		t.Fatalf("Session(%q, %q): %v", url, mode, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	s, ok := c.(driver.SQL)
	if !ok {
		t.Fatalf("sqlite connection does not implement driver.SQL")
	}
	return s
}

func TestConnectRejects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := (sqlite.Driver{}).Open(ctx, driver.Target{URL: "sqlite:" + filepath.Join(dir, "a.db")}, driver.Options{QueryMode: "pipelined"}); err == nil {
		t.Error("Open accepted query mode \"pipelined\"")
	}
	if _, err := (sqlite.Driver{}).Open(ctx, driver.Target{URL: "sqlite:" + filepath.Join(dir, "missing", "a.db")}, driver.Options{}); err == nil {
		t.Error("Open accepted a file in a directory that does not exist")
	}
	if _, err := (sqlite.Driver{}).Open(ctx, driver.Target{URL: "sqlite:" + filepath.Join(dir, "a.db") + "?foreign_keys=x%27y"}, driver.Options{}); err == nil {
		t.Error("Open accepted a pragma value with a quote")
	}
}

func TestRoundTrip(t *testing.T) {
	for _, mode := range []string{"prepared", "simple"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			c := connect(t, "sqlite:"+filepath.Join(t.TempDir(), "rt.db"), mode)
			if c.Dialect() != "sqlite" {
				t.Errorf("Dialect = %q", c.Dialect())
			}
			if err := c.Exec(ctx, "CREATE TABLE kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)"); err != nil {
				t.Fatal(err)
			}
			ins, err := c.Prepare(ctx, "INSERT INTO kv (k, v) VALUES ($1, $2)")
			if err != nil {
				t.Fatal(err)
			}
			for k := int64(1); k <= 5; k++ {
				if err := ins.Exec(ctx, k, 10*k); err != nil {
					t.Fatalf("insert %d: %v", k, err)
				}
			}
			sel, err := c.Prepare(ctx, "SELECT v FROM kv WHERE k = $1")
			if err != nil {
				t.Fatal(err)
			}
			for k := int64(1); k <= 5; k++ { // the same statement, reused
				if v, err := sel.QueryInt64(ctx, k); err != nil || v != 10*k {
					t.Errorf("SELECT v for k=%d = %d, %v; want %d", k, v, err, 10*k)
				}
			}
			// $n binds by position: $2 is the second argument wherever it appears.
			diff, err := c.Prepare(ctx, "SELECT $2 - $1")
			if err != nil {
				t.Fatal(err)
			}
			if v, err := diff.QueryInt64(ctx, int64(10), int64(3)); err != nil || v != -7 {
				t.Errorf("SELECT $2 - $1 with (10, 3) = %d, %v; want -7", v, err)
			}
			upd, err := c.Prepare(ctx, "UPDATE kv SET v = v + $2 WHERE k = $1")
			if err != nil {
				t.Fatal(err)
			}
			if err := upd.Exec(ctx, int64(2), int64(5)); err != nil {
				t.Fatal(err)
			}
			// 10 + 25 + 30 + 40 + 50
			if v, err := c.QueryInt64(ctx, "SELECT sum(v) FROM kv"); err != nil || v != 155 {
				t.Errorf("sum = %d, %v; want 155", v, err)
			}
			if v, err := c.QueryInt64(ctx, "SELECT count(*) FROM kv WHERE k >= $1 AND v < $2", int64(2), int64(45)); err != nil || v != 3 {
				t.Errorf("count(k>=2, v<45) = %d, %v; want 3", v, err)
			}
			// NULL → 0.
			if v, err := c.QueryInt64(ctx, "SELECT max(v) FROM kv WHERE k > $1", int64(100)); err != nil || v != 0 {
				t.Errorf("max over no rows = %d, %v; want 0, nil", v, err)
			}
			if v, err := sel.QueryInt64(ctx, int64(100)); err == nil {
				t.Errorf("query without rows returned %d, want an error", v)
			}
			if err := c.Exec(ctx, "SELEC 1"); err == nil {
				t.Error("Exec of a syntax error succeeded")
			}
		})
	}
}

// rows yields n rows (id, name, note) starting at id from; note is NULL for
// even ids. It reuses one slice, as the RowSource contract allows.
type rows struct {
	from, n, i int64
	vals       []any
}

func (r *rows) Next() bool {
	if r.i >= r.n {
		return false
	}
	id := r.from + r.i
	r.i++
	var note any
	if id%2 == 1 {
		note = "it's \"odd\", isn't it?\t;"
	}
	r.vals = append(r.vals[:0], id, "row-"+strconv.FormatInt(id, 10), note)
	return true
}

func (r *rows) Values() []any { return r.vals }

func TestBulkLoad(t *testing.T) {
	ctx := context.Background()
	c := connect(t, "sqlite:"+filepath.Join(t.TempDir(), "bulk.db"), "prepared")
	if err := c.Exec(ctx, `CREATE TABLE "my table" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "the note" TEXT)`); err != nil {
		t.Fatal(err)
	}
	bl, ok := c.(driver.BulkLoader)
	if !ok {
		t.Fatal("sqlite connection is not a driver.BulkLoader")
	}
	cols := []string{"id", "name", "the note"}
	check := func(wantRows, wantSum, wantNull int64) {
		t.Helper()
		if n, err := c.QueryInt64(ctx, `SELECT count(*) FROM "my table"`); err != nil || n != wantRows {
			t.Errorf("count = %d, %v; want %d", n, err, wantRows)
		}
		if n, err := c.QueryInt64(ctx, `SELECT sum(id) FROM "my table"`); err != nil || n != wantSum {
			t.Errorf("sum(id) = %d, %v; want %d", n, err, wantSum)
		}
		if n, err := c.QueryInt64(ctx, `SELECT count(*) FROM "my table" WHERE "the note" IS NULL`); err != nil || n != wantNull {
			t.Errorf("NULL notes = %d, %v; want %d", n, err, wantNull)
		}
		if n, err := c.QueryInt64(ctx, `SELECT count(*) FROM "my table" WHERE name = 'row-' || id`); err != nil || n != wantRows {
			t.Errorf("rows with name row-<id> = %d, %v; want %d", n, err, wantRows)
		}
		if n, err := c.QueryInt64(ctx, `SELECT count(*) FROM "my table" WHERE "the note" = $1`, "it's \"odd\", isn't it?\t;"); err != nil || n != wantRows-wantNull {
			t.Errorf("rows with the odd note = %d, %v; want %d", n, err, wantRows-wantNull)
		}
	}

	// 1234 = 12 full batches of 100 and a tail of 34.
	// sum(1…1234) = 1234·1235/2 = 761 995; even ids 2…1234: 617 of them.
	for pass := 1; pass <= 2; pass++ {
		n, err := bl.BulkLoad(ctx, "my table", cols, &rows{from: 1, n: 1234}, true)
		if err != nil || n != 1234 {
			t.Fatalf("BulkLoad pass %d = %d, %v; want 1234", pass, n, err)
		}
		check(1234, 761995, 617)
	}

	// Without truncate, rows are appended: ids 10001…10050,
	// sum = 50·10000 + 50·51/2 = 501 275; even ids: 25.
	n, err := bl.BulkLoad(ctx, "my table", cols, &rows{from: 10001, n: 50}, false)
	if err != nil || n != 50 {
		t.Fatalf("appending BulkLoad = %d, %v; want 50", n, err)
	}
	check(1284, 761995+501275, 617+25)

	// A failing load (duplicate key) leaves the table as it was: the truncate
	// and the rows before the failure are rolled back together.
	if _, err := bl.BulkLoad(ctx, "my table", cols, &rows{from: 1, n: 2}, false); err == nil {
		t.Error("BulkLoad of duplicate ids succeeded")
	}
	dup := &rows{from: 1, n: 300}
	if _, err := bl.BulkLoad(ctx, "my table", cols, &twice{inner: dup}, true); err == nil {
		t.Error("BulkLoad of a source with repeated ids succeeded")
	}
	check(1284, 761995+501275, 617+25)

	// An empty source with truncate empties the table.
	if n, err := bl.BulkLoad(ctx, "my table", cols, &rows{n: 0}, true); err != nil || n != 0 {
		t.Fatalf("empty BulkLoad = %d, %v", n, err)
	}
	check(0, 0, 0)
	// The connection is usable afterwards (no transaction left open).
	if err := c.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Errorf("BEGIN after BulkLoad: %v", err)
	} else if err := c.Exec(ctx, "COMMIT"); err != nil {
		t.Error(err)
	}
}

// twice yields every row of inner, then the first row again.
type twice struct {
	inner *rows
	first []any
	again bool
	cur   []any
}

func (w *twice) Next() bool {
	if w.inner.Next() {
		w.cur = w.inner.Values()
		if w.first == nil {
			w.first = append([]any(nil), w.cur...)
		}
		return true
	}
	if !w.again {
		w.again, w.cur = true, w.first
		return true
	}
	return false
}

func (w *twice) Values() []any { return w.cur }

func TestClassify(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "classify.db")
	a := connect(t, "sqlite:"+path+"?busy_timeout=0", "prepared")
	b := connect(t, "sqlite:"+path+"?busy_timeout=0", "simple")

	if err := a.Exec(ctx, "CREATE TABLE u (k INTEGER PRIMARY KEY, name TEXT UNIQUE)"); err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(ctx, "INSERT INTO u VALUES (1, 'x')"); err != nil {
		t.Fatal(err)
	}
	err := a.Exec(ctx, "INSERT INTO u VALUES (2, 'x')")
	if err == nil {
		t.Fatal("UNIQUE violation succeeded")
	}
	if got := a.Classify(err); got != result.ErrConstraint {
		t.Errorf("Classify(UNIQUE violation %q) = %q, want %q", err, got, result.ErrConstraint)
	}
	err = a.Exec(ctx, "INSERT INTO u VALUES (1, 'y')")
	if got := a.Classify(err); err == nil || got != result.ErrConstraint {
		t.Errorf("Classify(PRIMARY KEY violation %v) = %q, want %q", err, got, result.ErrConstraint)
	}

	// Two writers: the second BEGIN IMMEDIATE fails at once with SQLITE_BUSY.
	if err := a.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err = b.Exec(ctx, "BEGIN IMMEDIATE")
	if err == nil {
		t.Fatal("second BEGIN IMMEDIATE succeeded while the first writer holds the lock")
	}
	if got := b.Classify(err); got != result.ErrBusy {
		t.Errorf("Classify(lock conflict %q) = %q, want %q", err, got, result.ErrBusy)
	}
	if !result.ErrBusy.Retryable() {
		t.Error("busy is not retryable")
	}
	if err := a.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := b.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Errorf("BEGIN IMMEDIATE after the other writer finished: %v", err)
	} else {
		_ = b.Exec(ctx, "ROLLBACK")
	}

	err = a.Exec(ctx, "SELECT * FROM no_such_table")
	if got := a.Classify(err); err == nil || got != result.ErrOther {
		t.Errorf("Classify(missing table %v) = %q, want %q", err, got, result.ErrOther)
	}
	if got := a.Classify(context.DeadlineExceeded); got != result.ErrTimeout {
		t.Errorf("Classify(deadline) = %q, want %q", got, result.ErrTimeout)
	}
	if got := a.Classify(errors.New("something else")); got != result.ErrOther {
		t.Errorf("Classify(plain error) = %q, want %q", got, result.ErrOther)
	}
}

func TestEnvironment(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "env.db")
	c := connect(t, "sqlite:"+path+"?journal_mode=WAL&synchronous=NORMAL", "simple")
	// About 1 MiB of rows, which in WAL mode stay in the -wal file until a
	// checkpoint: the size reported is the database's, not its main file's.
	if err := c.Exec(ctx, "CREATE TABLE t (x INTEGER, pad BLOB)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "PRAGMA wal_autocheckpoint=0"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1000) SELECT i, randomblob(1000) FROM n"); err != nil {
		t.Fatal(err)
	}
	e, ok := c.(driver.Environment)
	if !ok {
		t.Fatal("sqlite connection is not a driver.Environment")
	}
	env, err := e.Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v := env.Version; !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("version = %#v, want 3.x.y", env.Version)
	}
	if env.Engine != "sqlite" {
		t.Errorf("engine = %#v", env.Engine)
	}
	settings := env.Settings
	if settings == nil {
		t.Fatalf("settings = %#v, want the pragmas read", env.Settings)
	}
	if settings["journal_mode"] != "wal" { // SQLite reports the mode in lower case
		t.Errorf("journal_mode = %q, want wal", settings["journal_mode"])
	}
	if settings["synchronous"] != "1" { // NORMAL = 1
		t.Errorf("synchronous = %q, want 1 (NORMAL)", settings["synchronous"])
	}
	if settings["busy_timeout"] != "5000" {
		t.Errorf("busy_timeout = %q, want the default 5000", settings["busy_timeout"])
	}
	if st, err := os.Stat(path); err != nil || st.Size() >= 900<<10 {
		t.Fatalf("the main file holds %v bytes (%v): the rows were checkpointed, and the test shows nothing", st.Size(), err)
	}
	if env.SizeBytes < 900<<10 || env.SizeBytes > 2<<20 || env.SizeText != strconv.FormatInt(env.SizeBytes, 10)+" bytes" {
		t.Errorf("size %d bytes (%q), want the ~1 MiB of pages, those in the WAL included", env.SizeBytes, env.SizeText)
	}
	if env.Extra["file"] != path {
		t.Errorf("file = %#v, want %q", env.Extra["file"], path)
	}
	if tls, _ := env.Extra["tls"].(map[string]any); tls == nil || tls["enabled"] != false {
		t.Errorf("tls = %#v, want enabled: false", env.Extra["tls"])
	}
}
