package queryset

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// watchedLog keeps what is written and closes seen at the first write that
// holds want.
type watchedLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchedLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchedLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// gatedRows yields n rows, waiting halfway until gate closes: the load is
// still going on when its progress must show.
type gatedRows struct {
	i, n    int
	gate    <-chan struct{}
	timeout bool
}

func (g *gatedRows) Next() bool {
	if g.i == g.n/2 {
		select {
		case <-g.gate:
		case <-time.After(30 * time.Second):
			g.timeout = true
		}
	}
	g.i++
	return g.i <= g.n
}

func (g *gatedRows) Values() []any { return []any{int64(g.i), fmt.Sprint("row ", g.i)} }

// TestLoadShowsProgressWhileItLoads: a load shows plain progress lines
// (not a terminal) with its rows, total, rate and time left before it
// ends; the source waits, halfway, for the first of them.
func TestLoadShowsProgressWhileItLoads(t *testing.T) {
	ctx := context.Background()
	conn := testenv.Connect(t, "sqlite:"+filepath.Join(t.TempDir(), "p.db"), driver.Options{})
	// The first rows are counted at once, a line with a rate is certain.
	log := &watchedLog{want: " rows/s", seen: make(chan struct{})}
	meter := progress.New(log, false)
	meter.First, meter.Every = time.Millisecond, time.Millisecond
	src := &gatedRows{n: 4000, gate: log.seen}
	d := Dataset{Name: "demo", Params: "n=4000", Wanted: "4000 rows", Workers: 1, Tables: []Table{{
		Name: "t", DDL: "CREATE TABLE t (id INTEGER, s TEXT)", Columns: []string{"id", "s"}, Rows: 4000,
		Chunks: []func(context.Context) (driver.RowSource, error){func(context.Context) (driver.RowSource, error) { return src, nil }},
	}}}
	env := workload.PrepareEnv{Load: true, Conn: conn, Progress: meter,
		Logf: func(format string, args ...any) { fmt.Fprintf(meter, format+"\n", args...) }}
	if _, err := load(ctx, env, conn.(driver.SQL), d); err != nil {
		t.Fatal(err)
	}
	if src.timeout {
		t.Fatalf("no progress line while the load was under way; printed:\n%s", log.String())
	}
	out := log.String()
	rateAt, doneAt := strings.Index(out, " rows/s"), strings.Index(out, "demo: loaded 4000 rows into t")
	if rateAt < 0 || doneAt < rateAt {
		t.Fatalf("the progress line does not come before the load's end:\n%s", out)
	}
	line := out[strings.LastIndexByte(out[:rateAt], '\n')+1:]
	line = line[:strings.IndexByte(line, '\n')]
	for _, want := range []string{"demo: loading t: ", "of 4,000 rows (", "rows/s", " left"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	if strings.Contains(out, "\r") {
		t.Errorf("a writer that is no terminal got a carriage return:\n%q", out)
	}
}

// TestNoRowsDoubtNamesTheEmptyQueries: queries that answered with no rows
// are named, with the workload's reason; a failed query (no rows, because
// no answer) is not among them, and a run without such queries has no doubt.
func TestNoRowsDoubtNamesTheEmptyQueries(t *testing.T) {
	one := 0.1
	r := &result.Run{Params: map[string]any{"scale": 0.01}, Summary: result.Summary{Queries: []result.QueryResult{
		{Name: "Q1", Tries: []*float64{&one}, Rows: 3},
		{Name: "Q2", Tries: []*float64{&one}},
		{Name: "Q3", Tries: []*float64{nil}, Error: "timeout"},
		{Name: "Q4", Tries: []*float64{nil, &one}},
	}}}
	why := func(p params.Values) string { return fmt.Sprintf("scale %v is small", p["scale"]) }
	got := noRowsDoubt(why)(r)
	want := []string{"2 of 4 queries returned no rows: Q2, Q4; scale 0.01 is small"}
	if !slices.Equal(got, want) {
		t.Errorf("doubts = %q, want %q", got, want)
	}
	r.Summary.Queries = r.Summary.Queries[:1]
	if got := noRowsDoubt(why)(r); got != nil {
		t.Errorf("doubts of a run whose queries found rows: %q", got)
	}
}
