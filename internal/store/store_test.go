package store

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// histogram returns a deterministic encoded histogram that differs with seed.
func histogram(t testing.TB, seed, n int) []byte {
	t.Helper()
	h := hist.New()
	for i := 1; i <= n; i++ {
		if err := h.RecordValue(int64((i*37*seed)%20000 + 50*seed)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sampleRun fills every field of a run; seed makes runs distinguishable.
func sampleRun(t testing.TB, seed int) *result.Run {
	t.Helper()
	berlin := time.FixedZone("CEST", 2*3600)
	start := time.Date(2025, 6, 1, 12, 0, seed, 123456789, berlin)
	return &result.Run{
		Source:     "fairbench",
		StudyName:  "cpu-gen",
		StudyHash:  "hash-a",
		CellKey:    fmt.Sprintf("native/tpcb/scale=10/c=%d/r=1", seed),
		CellIndex:  seed,
		Target:     "native",
		TargetURL:  "postgres://bench@db1:5432/bench",
		Workload:   "tpcb",
		Kind:       "tpcb",
		Params:     map[string]any{"scale": int64(10), "mode": "tpcb-like", "ratio": 0.25, "prepared": true, "big": int64(1_000_000)},
		Clients:    seed * 4,
		Repetition: 1,
		Status:     result.StatusOK,
		Error:      "",
		StartedAt:  start,
		EndedAt:    start.Add(60*time.Second + 17*time.Nanosecond),
		Warmup:     10 * time.Second,
		Duration:   60*time.Second + 17*time.Nanosecond,

		ToolVersion: "0.1.0-dev+abc",
		Env:         result.EnvironmentFromMap(map[string]any{"cores": int64(8), "cpu": "EPYC", "settings": map[string]any{"shared_buffers": "128MB", "max_connections": int64(100)}}),
		Deviations:  []string{"no vacuum before run"},
		Summary: result.Summary{
			Transactions: 60000 + int64(seed), Failed: 3, Retried: 2, Retries: 4, Throughput: 1000.25 + float64(seed),
			LatencyMean: 1234.5, LatencyStddev: 88.125, LatencyMin: 301.75, P50: 1200, P95: 1800, P99: 2500, Max: 9000,
			ConnectTimeMean: 3.5, ClientCPU: 12.75,
			Metric: &result.Metric{Headline: result.Headline{Name: "NOPM", Unit: "NOPM", HigherIsBetter: true,
				Field: result.FieldRequests, Ops: []string{"tpcb"}, Per: 60}, Value: 59999.5},
		},
		Ops: []result.Op{
			{Name: "tpcb", Count: 60000, Items: 120000, Bytes: 7_000_000_000, Errors: map[result.ErrorClass]int64{result.ErrSerialization: 2, result.ErrDeadlock: 1}, Histogram: histogram(t, seed, 5000),
				ServiceHistogram: histogram(t, seed+20, 5000)},
			{Name: "select", Count: 5, Errors: nil, Histogram: histogram(t, seed+10, 5)},
		},
		Series: []result.SeriesPoint{
			{Second: 1, Ops: 990, Errors: 1, Rate: 990.5, Mean: 1000.25, P50: 900, P95: 1500, P99: 2000, Max: 5000, CPU: 0.75,
				Hists: []result.IntervalOp{{Name: "tpcb", Count: 990, Items: 1980, Bytes: 5, SumUs: 990247.5,
					Errors: map[result.ErrorClass]int64{result.ErrThrottled: 1}, Histogram: string(histogram(t, seed+20, 990))}}},
			{Second: 2, Ops: 1010, Errors: 0, Rate: 1010, Mean: 990, P50: 880, P95: 1490, P99: 2100, Max: 4000, CPU: 0.8,
				Hists: []result.IntervalOp{}},
			{Second: 3, Ops: 1000, Errors: 0, Rate: 1000, Mean: 990, P50: 880, P95: 1490, P99: 2100, Max: 4000, CPU: 0.8}, // no histograms: an imported run's
		},
	}
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sameHistograms fails unless two encoded histograms hold the same distribution.
func sameHistograms(t *testing.T, what string, want, got []byte) {
	t.Helper()
	w, err := hist.Decode(want)
	if err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	g, err := hist.Decode(got)
	if err != nil {
		t.Fatalf("%s: stored histogram does not decode: %v", what, err)
	}
	if g.TotalCount() != w.TotalCount() {
		t.Errorf("%s: count %d, want %d", what, g.TotalCount(), w.TotalCount())
	}
	for _, q := range []float64{0, 50, 95, 99, 99.9, 100} {
		if g.ValueAtQuantile(q) != w.ValueAtQuantile(q) {
			t.Errorf("%s: p%v = %d, want %d", what, q, g.ValueAtQuantile(q), w.ValueAtQuantile(q))
		}
	}
	if !g.Equals(w) {
		t.Errorf("%s: histograms differ", what)
	}
}

func TestRunRoundTrip(t *testing.T) { eachDialect(t, testRunRoundTrip) }

func testRunRoundTrip(t *testing.T, s *Store) {
	in := sampleRun(t, 1)
	in.Params["duration"] = 30 * time.Second // a writer that forgot JSONable
	id, err := s.AppendRun(in)
	if err != nil {
		t.Fatal(err)
	}
	if id == 0 || in.ID != id {
		t.Fatalf("AppendRun returned id %d and set r.ID = %d", id, in.ID)
	}
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(runs))
	}
	out := runs[0]

	want := *in
	want.Params = map[string]any{"scale": int64(10), "mode": "tpcb-like", "ratio": 0.25, "prepared": true, "big": int64(1_000_000), "duration": "30s"}
	if !out.StartedAt.Equal(in.StartedAt) || !out.EndedAt.Equal(in.EndedAt) {
		t.Errorf("times: got %v–%v, want %v–%v", out.StartedAt, out.EndedAt, in.StartedAt, in.EndedAt)
	}
	for i := range want.Ops {
		sameHistograms(t, want.Ops[i].Name, want.Ops[i].Histogram, out.Ops[i].Histogram)
	}
	got := *out
	got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(&got, &want) {
		t.Errorf("round trip differs:\n got %#v\nwant %#v", got, want)
	}
}

func TestNonFiniteNumbersDoNotLoseTheRun(t *testing.T) { eachDialect(t, testNonFinite) }

func testNonFinite(t *testing.T, s *Store) {
	r := sampleRun(t, 1)
	r.Summary.LatencyMin = math.Inf(1) // minimum over zero operations
	r.Summary.LatencyStddev = math.NaN()
	r.Series[0].Mean = math.NaN()
	r.Env.Extra["load"] = math.Inf(-1)
	if _, err := s.AppendRun(r); err != nil {
		t.Fatalf("AppendRun: %v", err)
	}
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := runs[0]
	if got.Summary.LatencyMin != 0 || got.Summary.LatencyStddev != 0 || got.Series[0].Mean != 0 {
		t.Errorf("non-finite numbers stored as %v %v %v, want 0", got.Summary.LatencyMin, got.Summary.LatencyStddev, got.Series[0].Mean)
	}
	if v, ok := got.Env.Extra["load"]; !ok || v != nil {
		t.Errorf("env load = %v (present %v), want nil", v, ok)
	}
	if got.Summary.Throughput != r.Summary.Throughput {
		t.Errorf("finite numbers changed: throughput %v, want %v", got.Summary.Throughput, r.Summary.Throughput)
	}
}

func TestSaveStudyIdempotent(t *testing.T) { eachDialect(t, testSaveStudyIdempotent) }

func testSaveStudyIdempotent(t *testing.T, s *Store) {
	if err := s.SaveStudy("h1", "cpu-gen", "study.toml", []byte("a = 1")); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveStudy("h1", "renamed", "other.toml", []byte("a = 1")); err != nil {
		t.Fatalf("saving the same study twice: %v", err)
	}
	if err := s.SaveStudy("h2", "cpu-gen", "study.toml", []byte("a = 2")); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM studies").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d studies stored, want 2", n)
	}
	var name string
	var content []byte
	if err := s.db.QueryRow("SELECT name, content FROM studies WHERE hash = 'h1'").Scan(&name, &content); err != nil {
		t.Fatal(err)
	}
	if name != "cpu-gen" || string(content) != "a = 1" {
		t.Errorf("study h1 = %q %q, want the first save kept", name, content)
	}
}

func appendAll(t *testing.T, s *Store, runs ...*result.Run) {
	t.Helper()
	for _, r := range runs {
		if _, err := s.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
}

func run(study, hash, cell, target string, st result.Status) *result.Run {
	return &result.Run{Source: "fairbench", StudyName: study, StudyHash: hash, CellKey: cell, Target: target, Status: st,
		Params: map[string]any{"scale": int64(1)}}
}

func TestCompletedCells(t *testing.T) { eachDialect(t, testCompletedCells) }

func testCompletedCells(t *testing.T, s *Store) {
	appendAll(t, s,
		run("s", "h1", "a", "x", result.StatusOK),
		run("s", "h1", "b", "x", result.StatusInterrupted),
		run("s", "h1", "c", "x", result.StatusFailed),
		run("s", "h2", "d", "x", result.StatusOK), // same cell names, edited study file
		run("s", "h1", "e", "x", result.StatusFailed),
		run("s", "h1", "e", "x", result.StatusOK), // failed first, completed on resume
	)
	got, err := s.CompletedCells("h1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a": true, "e": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CompletedCells = %v, want %v", got, want)
	}
	got, err = s.CompletedCells("none")
	if err != nil || len(got) != 0 {
		t.Errorf("CompletedCells of an unknown study = %v, %v; want empty", got, err)
	}
}

func ids(runs []*result.Run) []int64 {
	out := []int64{}
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}

func TestFilter(t *testing.T) { eachDialect(t, testFilter) }

func testFilter(t *testing.T, s *Store) {
	appendAll(t, s,
		run("old", "h1", "a", "vm", result.StatusOK),          // 1
		run("old", "h1", "a", "k8s", result.StatusOK),         // 2
		run("new", "h2", "a", "vm", result.StatusOK),          // 3
		run("new", "h2", "a", "k8s", result.StatusFailed),     // 4
		run("new", "h2", "b", "vm", result.StatusInterrupted), // 5
		run("new", "h2", "c", "bare", result.StatusOK),        // 6
		run("old", "h1", "b", "vm", result.StatusOK),          // 7: old resumed, so the latest again
	)
	cases := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{1, 2, 3, 4, 5, 6, 7}},
		{"target", Filter{Targets: []string{"vm"}}, []int64{1, 3, 5, 7}},
		{"targets", Filter{Targets: []string{"k8s", "bare"}}, []int64{2, 4, 6}},
		{"status", Filter{Status: []result.Status{result.StatusOK}}, []int64{1, 2, 3, 6, 7}},
		{"statuses", Filter{Status: []result.Status{result.StatusFailed, result.StatusInterrupted}}, []int64{4, 5}},
		{"study name", Filter{StudyName: "new"}, []int64{3, 4, 5, 6}},
		{"study hash", Filter{StudyHash: "h1"}, []int64{1, 2, 7}},
		{"ids", Filter{IDs: []int64{7, 2, 99}}, []int64{2, 7}},
		{"latest", Filter{LatestStudy: true}, []int64{1, 2, 7}},
		{"latest with k8s", Filter{LatestStudy: true, Targets: []string{"k8s"}}, []int64{4}},
		{"latest with bare", Filter{LatestStudy: true, Targets: []string{"bare"}}, []int64{6}},
		{"latest among failed", Filter{LatestStudy: true, Status: []result.Status{result.StatusFailed, result.StatusInterrupted}}, []int64{4, 5}},
		{"target and status", Filter{Targets: []string{"vm"}, Status: []result.Status{result.StatusOK}}, []int64{1, 3, 7}},
		{"nothing", Filter{Targets: []string{"none"}}, []int64{}},
	}
	for _, c := range cases {
		runs, err := s.Runs(c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := ids(runs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ids %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()

	foreign := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO users (name) VALUES ('ada')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	// A table called meta is not enough to make a file ours.
	otherMeta := filepath.Join(dir, "meta.db")
	db, err = sql.Open("sqlite", otherMeta)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('schema_version', '1')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	text := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(text, []byte(strings.Repeat("these are my notes, not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{foreign, otherMeta, text} {
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(path)
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) succeeded, want refusal", path)
			continue
		}
		if want := path + " is not a fairbench results file"; !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) error %q, want it to say %q", path, err, want)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("Open(%s) changed the file", path)
		}
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if _, err := os.Stat(path + suffix); err == nil {
				t.Errorf("Open(%s) left %s behind", path, path+suffix)
			}
		}
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) { eachLocation(t, testOpenRefusesNewerSchema) }

func testOpenRefusesNewerSchema(t *testing.T, path string) {
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, run("s", "h", "a", "x", result.StatusOK))
	newer := schemaVersion() + 1
	shown := s.Path()
	if _, err := s.db.Exec(s.q("UPDATE meta SET value = ? WHERE key = 'schema_version'"), fmt.Sprint(newer)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	_, err = Open(path)
	if err == nil {
		t.Fatal("Open of a newer schema succeeded")
	}
	for _, want := range []string{shown, fmt.Sprintf("schema version %d", newer), fmt.Sprintf("(%d)", schemaVersion())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestReopenKeepsRunsAndVersion(t *testing.T) {
	eachLocation(t, func(t *testing.T, loc string) {
		if !IsURL(loc) {
			// A '?' in the name must not be taken for DSN options.
			loc = filepath.Join(filepath.Dir(loc), "what?.db")
		}
		testReopenKeepsRunsAndVersion(t, loc)
	})
}

func testReopenKeepsRunsAndVersion(t *testing.T, path string) {
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, run("s", "h", "a", "x", result.StatusOK))
	s.Close()
	if _, err := os.Stat(path); err != nil && !IsURL(path) {
		t.Fatalf("results file not created at its path: %v", err)
	}

	s, err = Open(path)
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	defer s.Close()
	var v, mode string
	if err := s.db.QueryRow("SELECT value FROM meta WHERE key = 'schema_version'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != fmt.Sprint(schemaVersion()) {
		t.Errorf("schema_version %s, want %d", v, schemaVersion())
	}
	if s.pg == nil {
		if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal mode %q (%v), want wal", mode, err)
		}
	}
	runs, err := s.Runs(Filter{})
	if err != nil || len(runs) != 1 {
		t.Errorf("after reopening: %d runs, %v; want 1", len(runs), err)
	}
}

const helperEnv = "FAIRBENCH_STORE_HELPER_DB"

// TestHelperProcess is the child of TestAppendRunSurvivesSIGKILL, not a test.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("runs only as the child of TestAppendRunSurvivesSIGKILL")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	for i := 1; i <= 3; i++ {
		if _, err := s.AppendRun(sampleRun(t, i)); err != nil {
			fmt.Println("append:", err)
			os.Exit(2)
		}
	}
	fmt.Println("ready")
	time.Sleep(time.Minute) // killed long before this ends
	os.Exit(3)
}

func TestAppendRunSurvivesSIGKILL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fairbench.db")
	killChild(t, startHelper(t, "TestHelperProcess", helperEnv+"="+path))
	// The committed runs live in the write-ahead log the child could not checkpoint.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Errorf("expected a non-empty WAL after the kill: %v", err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("read %d runs after SIGKILL, want 3", len(runs))
	}
	for i, r := range runs {
		want := sampleRun(t, i+1)
		if r.CellKey != want.CellKey || !reflect.DeepEqual(r.Summary, want.Summary) || len(r.Ops) != len(want.Ops) || len(r.Series) != len(want.Series) {
			t.Errorf("run %d differs: got %s %+v with %d ops, %d points", i+1, r.CellKey, r.Summary, len(r.Ops), len(r.Series))
			continue
		}
		for j := range want.Ops {
			sameHistograms(t, fmt.Sprintf("run %d op %s", i+1, want.Ops[j].Name), want.Ops[j].Histogram, r.Ops[j].Histogram)
		}
	}
}

// startHelper starts this test binary running only the test named (a
// helper, not a test) with env added, and returns once it printed "ready".
func startHelper(t *testing.T, name, env string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var lines []string
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- nil
				return
			}
			lines = append(lines, sc.Text())
		}
		ready <- fmt.Errorf("child ended without ready: %q", lines)
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v; stderr: %s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child not ready after 60 s; stderr: %s", stderr.String())
	}
	return cmd
}

// killChild kills a helper with SIGKILL: no deferred Close, no checkpoint.
func killChild(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if cmd.ProcessState.Success() || cmd.ProcessState.ExitCode() != -1 {
		t.Fatalf("child was not killed by a signal: %v", cmd.ProcessState)
	}
}

// Two handles on one file stand in for two load generators appending to a
// shared results file: busy_timeout must serialise them without losing a run.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fairbench.db")
	const writers, each = 4, 25
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			s, err := Open(path)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := 0; i < each; i++ {
				if _, err := s.AppendRun(run("s", "h", fmt.Sprintf("w%d-%d", w, i), "x", result.StatusOK)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cells, err := s.CompletedCells("h")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != writers*each {
		t.Errorf("%d runs stored, want %d", len(cells), writers*each)
	}
}

func TestOpenURLNamesItWithoutThePassword(t *testing.T) {
	_, err := Open("postgres://bench:Pw-Unique-5521@stats-db/fairbench")
	if err == nil || strings.Contains(err.Error(), "Pw-Unique-5521") || !strings.Contains(err.Error(), "postgres://bench:xxxxx@stats-db") {
		t.Fatalf("err %v: want the URL named with its password replaced", err)
	}
}
