package queryset

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// loadCounter is a session that counts its BulkLoad calls and notes whether
// the sources it got were typed.
type loadCounter struct {
	driver.Conn
	mu           sync.Mutex
	calls, typed int
}

func (l *loadCounter) BulkLoad(ctx context.Context, table string, columns []string, rows driver.RowSource, truncate bool) (int64, error) {
	l.mu.Lock()
	l.calls++
	if _, ok := rows.(driver.TypedRowSource); ok {
		l.typed++
	}
	l.mu.Unlock()
	return l.Conn.(driver.BulkLoader).BulkLoad(ctx, table, columns, rows, truncate)
}

// typedRows yields rows first..last of (id, label) as typed rows.
type typedRows struct {
	at, last int64
	row      *driver.TypedRow
}

func newTypedRows(first, last int64) *typedRows {
	return &typedRows{at: first - 1, last: last, row: driver.NewTypedRow([]driver.Kind{driver.KindInt, driver.KindString})}
}

func (r *typedRows) Next() bool {
	if r.at++; r.at > r.last {
		return false
	}
	r.row.Ints[0], r.row.Strs[1] = r.at, "row"
	return true
}
func (r *typedRows) Values() []any              { return r.row.Values() }
func (r *typedRows) Kinds() []driver.Kind       { return r.row.Kinds() }
func (r *typedRows) Typed() ([]int64, []string) { return r.row.Typed() }

// chunkedTable is a table of chunks×per rows, id 1.., in chunks of per rows;
// the chunk numbered failAt (from 0; -1: none) fails to open.
func chunkedTable(chunks, per, failAt int) Table {
	t := Table{Name: "t", DDL: "CREATE TABLE t (id INTEGER, s TEXT)", Columns: []string{"id", "s"}, Rows: int64(chunks * per)}
	for c := range chunks {
		t.Chunks = append(t.Chunks, func(context.Context) (driver.RowSource, error) {
			if c == failAt {
				return nil, errChunk
			}
			return newTypedRows(int64(c*per+1), int64((c+1)*per)), nil
		})
	}
	return t
}

var errChunk = errors.New("chunk failed to open")

// TestSessionLoadsItsChunksThroughOneBulkLoad: a session loads all the
// chunks it takes through one BulkLoad (on ClickHouse, one INSERT whose
// buffers stay grown), typed when the chunks are, and every row arrives.
func TestSessionLoadsItsChunksThroughOneBulkLoad(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "c.db")
	conn := testenv.Connect(t, dsn, driver.Options{})
	sess := &loadCounter{Conn: conn}
	env := workload.PrepareEnv{Load: true, Conn: sess, Progress: progress.New(nil, false), Logf: t.Logf}
	d := Dataset{Name: "demo", Params: "chain", Wanted: "40 rows", Workers: 1, Tables: []Table{chunkedTable(4, 10, -1)}}
	if _, err := load(ctx, env, conn.(driver.SQL), d); err != nil {
		t.Fatal(err)
	}
	if sess.calls != 1 || sess.typed != 1 {
		t.Errorf("4 chunks on one session: %d BulkLoad calls (%d typed), want 1 (typed)", sess.calls, sess.typed)
	}
	for q, want := range map[string]int64{"SELECT count(*) FROM t": 40, "SELECT count(DISTINCT id) FROM t": 40, "SELECT min(id) FROM t": 1, "SELECT max(id) FROM t": 40} {
		if got, err := conn.(driver.SQL).QueryInt64(ctx, q); err != nil || got != want {
			t.Errorf("%s = %d (%v), want %d", q, got, err, want)
		}
	}
}

// TestChunkThatFailsToOpenFailsTheLoad: a chunk that cannot open, after
// others of the same session loaded, fails the table's load with its error.
func TestChunkThatFailsToOpenFailsTheLoad(t *testing.T) {
	ctx := context.Background()
	conn := testenv.Connect(t, "sqlite:"+filepath.Join(t.TempDir(), "f.db"), driver.Options{})
	env := workload.PrepareEnv{Load: true, Conn: &loadCounter{Conn: conn}, Progress: progress.New(nil, false), Logf: t.Logf}
	d := Dataset{Name: "demo", Params: "fail", Wanted: "40 rows", Workers: 1, Tables: []Table{chunkedTable(4, 10, 2)}}
	if _, err := load(ctx, env, conn.(driver.SQL), d); !errors.Is(err, errChunk) {
		t.Fatalf("load = %v, want the chunk's error", err)
	}
}
