package queryset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// fakeEngine answers analytical queries: each query text takes the next of
// its durations, fails with its error, or blocks until its context ends.
type fakeEngine struct {
	mu     sync.Mutex
	calls  []string
	at     []time.Time // when each call came
	took   map[string][]time.Duration
	fail   map[string]error
	blocks map[string]bool
}

func (f *fakeEngine) Close(context.Context) error { return nil }
func (f *fakeEngine) Classify(err error) result.ErrorClass {
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	return result.ErrOther
}

func (f *fakeEngine) Analyze(ctx context.Context, q string, _ func([]any) error) (driver.QueryStats, error) {
	f.mu.Lock()
	f.calls = append(f.calls, q)
	f.at = append(f.at, time.Now())
	var d time.Duration
	if ds := f.took[q]; len(ds) > 0 {
		d, f.took[q] = ds[0], ds[1:]
	}
	err, blocks := f.fail[q], f.blocks[q]
	f.mu.Unlock()
	if blocks {
		<-ctx.Done()
		return driver.QueryStats{}, ctx.Err()
	}
	time.Sleep(d)
	return driver.QueryStats{Rows: 3, ServerElapsed: d / 2}, err
}

type recorded struct {
	ok     []int
	failed []result.ErrorClass
}

func (r *recorded) Request(op int, _ time.Duration, items, _ int64) { r.ok = append(r.ok, op) }
func (r *recorded) Failed(op int, c result.ErrorClass)              { r.failed = append(r.failed, c) }

func values(t *testing.T, kv map[string]any) params.Values {
	t.Helper()
	v := params.Values{}
	for _, s := range Specs() {
		v[s.Name] = s.Default
	}
	for k, x := range kv {
		v[k] = x
	}
	return v
}

// drain runs the set's single client until it says it is done.
func drain(t *testing.T, s *Set, conn driver.Conn) (ops []int, errs []error) {
	t.Helper()
	op, err := s.NewSlotWorker(context.Background(), conn, workload.ClientSlot{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the tries mode never ended")
		}
		i, err := op(context.Background(), nil, &recorded{})
		if errors.Is(err, workload.ErrClientDone) {
			return ops, errs
		}
		ops, errs = append(ops, i), append(errs, err)
	}
}

func TestTriesRunEachQueryInARowColdThenHot(t *testing.T) {
	s, err := New(values(t, map[string]any{"tries": int64(3)}), []string{"A", "B"})
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	// The tries sleep: a sleep never ends early but may end late on a busy
	// machine, so the tries are far apart and each bound has room above.
	f := &fakeEngine{took: map[string][]time.Duration{"qa": {60 * ms, 10 * ms, 40 * ms}, "qb": {5 * ms, 40 * ms, 6 * ms}}}
	if err := s.Bind([]Query{{Name: "A", SQL: "qa"}, {Name: "B", SQL: "qb"}}); err != nil {
		t.Fatal(err)
	}
	ops, _ := drain(t, s, f)
	if got := strings.Join(f.calls, ","); got != "qa,qa,qa,qb,qb,qb" {
		t.Fatalf("order of the tries: %s", got)
	}
	if len(ops) != 6 || ops[0] != 0 || ops[5] != 1 {
		t.Fatalf("op types %v", ops)
	}
	res := s.Shape().Results()
	cold, _ := res[0].Cold()
	hot, _ := res[0].Hot()
	if cold < 0.060 || cold > 0.5 || hot < 0.010 || hot >= 0.040 {
		t.Errorf("A: cold %.4f s (want the first try, ~60 ms), hot %.4f s (want the best later try, ~10 ms)", cold, hot)
	}
	if hot, _ := res[1].Hot(); hot < 0.006 || hot >= 0.040 {
		t.Errorf("B: hot %.4f s, want the 6 ms try (the 5 ms one is the cold try, the 40 ms one not the best)", hot)
	}
	if res[0].Rows != 3 || res[0].ServerSeconds < 0.005 || res[0].ServerSeconds > 0.009 {
		t.Errorf("A: rows %d, server time %.4f s: want the engine's account of the hot try (5 ms)", res[0].Rows, res[0].ServerSeconds)
	}
	if sh := s.Shape(); sh.End.Kind() != workload.EndTries || sh.End.Bound() < 6*10*time.Minute {
		t.Errorf("tries mode: end %s, bound %s", sh.End.Kind(), sh.End.Bound())
	}
}

func TestTimedOutTryIsNullWithTheReasonAndTheRunGoesOn(t *testing.T) {
	s, err := New(values(t, map[string]any{"tries": int64(2), "timeout": 40 * time.Millisecond}), []string{"A", "B", "C"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEngine{blocks: map[string]bool{"qb": true}, fail: map[string]error{"qc": errors.New("Code: 46. Unknown function REGEXP_REPLACE")}}
	if err := s.Bind([]Query{{Name: "A", SQL: "qa"}, {Name: "B", SQL: "qb"}, {Name: "C", SQL: "qc"}}); err != nil {
		t.Fatal(err)
	}
	_, errs := drain(t, s, f)
	if len(errs) != 6 {
		t.Fatalf("%d tries, want 6", len(errs))
	}
	res := s.Shape().Results()
	if res[0].Tries[0] == nil || res[0].Tries[1] == nil {
		t.Errorf("A: %v", res[0].Tries)
	}
	if res[1].Tries[0] != nil || res[1].Tries[1] != nil || !strings.Contains(res[1].Error, "timed out after 40ms") || !strings.HasPrefix(res[1].Error, "try 1: timeout") {
		t.Errorf("B: tries %v, error %q: want nulls and the timeout", res[1].Tries, res[1].Error)
	}
	if !errors.Is(errs[2], context.DeadlineExceeded) {
		t.Errorf("B's error %v does not say it was a deadline (the runner reconnects on it)", errs[2])
	}
	if res[2].Tries[0] != nil || !strings.Contains(res[2].Error, "REGEXP_REPLACE") {
		t.Errorf("C: tries %v, error %q: want nulls and the engine's message", res[2].Tries, res[2].Error)
	}
	if m, missing := result.QueryGeoMean(res); missing != 2 || m <= 0 {
		t.Errorf("geometric mean %v with %d missing; want A's time, 2 missing", m, missing)
	}
}

// The tries mode's dead time: a stall runs from the start of a failed try
// to the start of the next successful one, or to the end of the last try;
// tries that ran into the set's own timeout start none.
func TestStallsAreTheTimeNoTrySucceeded(t *testing.T) {
	// The timeout is far above C's 20 ms tries: on a loaded machine a 20 ms
	// sleep can overrun a timeout close to it, and a try that timed out
	// starts no stall.
	s, err := New(values(t, map[string]any{"tries": int64(2), "timeout": 500 * time.Millisecond}), []string{"A", "B", "C", "D", "E"})
	if err != nil {
		t.Fatal(err)
	}
	lost := errors.New("read: connection reset by peer")
	ms := time.Millisecond
	f := &fakeEngine{blocks: map[string]bool{"qb": true}, fail: map[string]error{"qc": lost, "qe": lost},
		took: map[string][]time.Duration{"qc": {20 * ms, 20 * ms}}}
	if err := s.Bind([]Query{{Name: "A", SQL: "qa"}, {Name: "B", SQL: "qb"}, {Name: "C", SQL: "qc"}, {Name: "D", SQL: "qd"}, {Name: "E", SQL: "qe"}}); err != nil {
		t.Fatal(err)
	}
	drain(t, s, f)
	// Calls: qa qa qb qb qc qc qd qd qe qe.
	st := s.Shape().Stalls()
	if len(st) != 2 {
		t.Fatalf("stalls %+v, want C's and E's", st)
	}
	if c := st[0]; c.From.After(f.at[4]) || !c.From.After(f.at[3]) || c.To.Before(f.at[5]) || c.To.After(f.at[6]) || c.To.Sub(c.From) < 40*ms {
		t.Errorf("C's stall %v–%v, want from C's first try (not B's timed-out ones) to D's first, at least its two 20 ms tries", c.From, c.To)
	}
	if e := st[1]; e.From.After(f.at[8]) || !e.From.After(f.at[7]) || e.To.Before(f.at[9]) {
		t.Errorf("E's stall %v–%v, want from E's first try to the end of its last", e.From, e.To)
	}
	s.Bind([]Query{{Name: "A", SQL: "qa"}, {Name: "B", SQL: "qb"}, {Name: "C", SQL: "qc"}, {Name: "D", SQL: "qd"}, {Name: "E", SQL: "qe"}})
	if st := s.Shape().Stalls(); len(st) != 0 {
		t.Errorf("stalls of the last run kept by a new one: %v", st)
	}
}

func TestQueryWithoutTextIsNotSent(t *testing.T) {
	s, _ := New(values(t, nil), []string{"A", "B"})
	f := &fakeEngine{}
	if err := s.Bind([]Query{{Name: "A", Skip: "no rewrite for this version"}, {Name: "B", SQL: "qb"}}); err != nil {
		t.Fatal(err)
	}
	drain(t, s, f)
	if strings.Contains(strings.Join(f.calls, ","), "qa") || len(f.calls) != 3 {
		t.Errorf("calls %v", f.calls)
	}
	if r := s.Shape().Results()[0]; r.Error != "not run: no rewrite for this version" || r.Tries[0] != nil {
		t.Errorf("A: %+v", r)
	}
	if err := s.Bind([]Query{{Name: "A", Skip: "x"}, {Name: "B", Skip: "x"}}); err == nil {
		t.Error("a set of which no query can run was bound")
	}
}

func TestTriesModeTakesOneClientAndConcurrentModeMany(t *testing.T) {
	s, _ := New(values(t, nil), []string{"A"})
	s.Bind([]Query{{Name: "A", SQL: "qa"}})
	_, err := s.NewSlotWorker(context.Background(), &fakeEngine{}, workload.ClientSlot{Index: 1, Clients: 4})
	if err == nil || !strings.Contains(err.Error(), "concurrent") {
		t.Errorf("tries mode with 4 clients: %v", err)
	}
	c, _ := New(values(t, map[string]any{"mode": modeConcurrent}), []string{"A"})
	c.Bind([]Query{{Name: "A", SQL: "qa"}})
	if sh := c.Shape(); sh.End.Kind() != workload.EndAtDuration || sh.Results() != nil || sh.Headline.Unit != "qps" {
		t.Errorf("concurrent mode: end %s, results %v, headline %+v", sh.End.Kind(), sh.Results(), sh.Headline)
	}
	if _, err := c.NewSlotWorker(context.Background(), &fakeEngine{}, workload.ClientSlot{Index: 1, Clients: 4}); err != nil {
		t.Error(err)
	}
}

func TestQueriesParameterSelectsInTheSetsOrder(t *testing.T) {
	s, err := New(values(t, map[string]any{"queries": []string{"C", "A"}}), []string{"A", "B", "C"})
	if err != nil || strings.Join(s.Names(), ",") != "A,C" {
		t.Fatalf("%v %v", s.Names(), err)
	}
	if _, err := New(values(t, map[string]any{"queries": []string{"Q9"}}), []string{"A", "B"}); err == nil || !strings.Contains(err.Error(), "A, B") {
		t.Errorf("unknown query: %v", err)
	}
}

func f64(v float64) *float64 { return &v }

func run(target string, tries ...[]*float64) *result.Run {
	r := &result.Run{Target: target, Status: result.StatusOK, Kind: "ssb"}
	for i, ts := range tries {
		r.Summary.Queries = append(r.Summary.Queries, result.QueryResult{Name: string(rune('A' + i)), Tries: ts})
	}
	return r
}

// TestCombinedScoreIsClickBenchs checks the score against ClickBench's
// formula worked by hand: per query (t + 0.01) / (best + 0.01), a missing
// time 2 × max(300 s, the system's slowest), geometric mean.
func TestCombinedScoreIsClickBenchs(t *testing.T) {
	a := run("a", []*float64{f64(9), f64(1), f64(2)}, []*float64{f64(9), f64(4), f64(3)})
	b := run("b", []*float64{f64(9), f64(0.5), f64(0.5)}, []*float64{nil, nil, nil})
	ts := byTarget([]*result.Run{a, b})
	got := combinedScores(ts, []string{"A", "B"})
	wantA := math.Sqrt((1 + 0.01) / (0.5 + 0.01) * (3 + 0.01) / (3 + 0.01))
	wantB := math.Sqrt((0.5 + 0.01) / (0.5 + 0.01) * (600 + 0.01) / (3 + 0.01))
	if math.Abs(got[0]-wantA) > 1e-9 || math.Abs(got[1]-wantB) > 1e-9 {
		t.Errorf("scores %v, want [%v %v]", got, wantA, wantB)
	}
	sec := Report{ClickBenchScore: true}.sections([]*result.Run{a, b}, "a")
	if len(sec) != 1 || len(sec[0].Rows) != 5 || !sec[0].Lead {
		t.Fatalf("sections %+v", sec)
	}
	want := "query,a cold (s),a hot (s),b cold (s),b hot (s),b / a (hot)"
	if got := strings.Join(sec[0].Columns, ","); got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	// The ratio is of the hot times beside it, 0.5 / 1, not of the medians
	// of every hot try (0.5 / 1.5).
	if row := sec[0].Rows[0]; row[1] != "9.000" || row[2] != "1.000" || row[4] != "0.5000" || !strings.HasPrefix(row[5], "×0.50") {
		t.Errorf("row A %v: want a's cold 9 s and hot 1 s, b's hot 0.5 s, b/a ×0.50", row)
	}
	if row := sec[0].Rows[1]; row[3] != "null" || row[4] != "null" || row[5] != "—" {
		t.Errorf("row B %v: b has no time", row)
	}
	// Sums: a's cold 9 + 9, hot 1 + 3; b answered one query of two. The
	// ratio of the sums is over the query both answered: 0.5 / 1.
	if row := sec[0].Rows[2]; strings.Join(row, ",") != "sum,18.000,4.000,9.000 (1 of 2),0.5000 (1 of 2),×0.50" {
		t.Errorf("sum row %v", row)
	}
	if row := sec[0].Rows[3]; row[0] != "geometric mean" || row[2] != secs(math.Sqrt(3)) || row[5] != "×0.50" {
		t.Errorf("geometric mean row %v", row)
	}
}

// A ratio reads as the times beside it: 0.0791 s against 0.1063 s is ×1.34
// even when the medians of every hot try are equal (a published report
// printed ×1.00 there).
func TestRatioAgreesWithTheTimesBesideIt(t *testing.T) {
	a := run("a", []*float64{f64(0.2), f64(0.0791), f64(0.12), f64(0.12)})
	b := run("b", []*float64{f64(0.2), f64(0.1063), f64(0.12), f64(0.12)})
	rows := Report{}.sections([]*result.Run{a, b}, "a")[0].Rows
	if row := rows[0]; row[2] != "0.0791" || row[4] != "0.1063" || !strings.HasPrefix(row[5], "×1.34") {
		t.Errorf("row %v: want 0.0791, 0.1063 and ×1.34", row)
	}
}

// A time under a millisecond keeps its significant digits.
func TestTinyTimesAreNotZero(t *testing.T) {
	if got := secs(0.0000432); got != "0.000043" {
		t.Errorf("secs(0.0000432) = %q", got)
	}
}

func TestClickBenchFileShape(t *testing.T) {
	r := run("pg", []*float64{f64(0.1234567891), f64(0.05), f64(0.04)}, []*float64{nil, f64(1), nil})
	r.StartedAt = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	r.Env = result.EnvironmentFromMap(map[string]any{
		"database":                map[string]any{"engine": "postgresql", "version": "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64"},
		"host":                    map[string]any{"cpu_model": "AMD EPYC", "threads": 2, "memory_gib": 23.6},
		"workload":                map[string]any{FactLoadSeconds: "12.500", FactDataBytes: "1048576", FactSynthetic: "1000 rows"},
		"client_server_same_host": true,
	})
	var buf bytes.Buffer
	if err := WriteClickBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	for k, want := range map[string]any{"system": "postgresql 15.18", "date": "2026-11-25", "machine": "AMD EPYC, 2 threads, 24 GiB",
		"load_time": 12.5, "data_size": float64(1048576), "cluster_size": float64(1)} {
		if got[k] != want {
			t.Errorf("%s: %v, want %v", k, got[k], want)
		}
	}
	res, _ := got["result"].([]any)
	if len(res) != 2 || res[1].([]any)[0] != nil || res[0].([]any)[0] != 0.123457 {
		t.Errorf("result %v", got["result"])
	}
	if !strings.Contains(buf.String(), "[null, 1, null]") {
		t.Errorf("tries not one line per query:\n%s", buf.String())
	}
	if !strings.Contains(got["comment"].(string), "synthetic") {
		t.Errorf("synthetic data not said: %v", got["comment"])
	}
	same := false
	r.Env.SameHost = &same
	if cb, _ := clickBench(r); cb.Machine != "pg" {
		t.Errorf("a remote server's machine is %q: want the target's name, not this host", cb.Machine)
	}
	r.Env.Declared = result.Declared{CPU: "Graviton4", Cores: 16}
	if cb, _ := clickBench(r); cb.Machine != "Graviton4, 16 cores" {
		t.Errorf("machine %q: want what the study declares", cb.Machine)
	}
	if err := WriteClickBench(&buf, &result.Run{ID: 7, Kind: "ssb"}); err == nil {
		t.Error("a run without tries wrote a ClickBench file")
	}
}

// TestLoadWorkersDomain: load_workers defaults to GOMAXPROCS and refuses
// what no load can use (0, negative, NaN, 10^12) with the parameter's name.
func TestLoadWorkersDomain(t *testing.T) {
	spec, ok := params.Find(Specs(), paramLoadWorkers)
	if !ok {
		t.Fatalf("no %s parameter", paramLoadWorkers)
	}
	if want := int64(min(runtime.GOMAXPROCS(0), maxLoadWorkers)); spec.Default != want {
		t.Errorf("default %v, want GOMAXPROCS %d", spec.Default, want)
	}
	for _, bad := range []any{int64(0), int64(-1), math.NaN(), 1e12, "NaN", "1e12", "many"} {
		if v, err := params.Coerce(spec, bad); err == nil || !strings.Contains(err.Error(), paramLoadWorkers) {
			t.Errorf("%v: accepted as %v (%v); want an error naming %s", bad, v, err, paramLoadWorkers)
		}
	}
	v, err := params.Coerce(spec, "3")
	if err != nil || v != int64(3) {
		t.Fatalf("3: %v, %v", v, err)
	}
	s, err := New(params.WithDefaults(Specs(), params.Values{paramLoadWorkers: v}), []string{"Q1"})
	if err != nil || s.LoadWorkers() != 3 {
		t.Errorf("set's load workers %d (%v), want 3", s.LoadWorkers(), err)
	}
}
