package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/testenv"
)

// fixtures is the adapter's directory of real tool outputs.
func fixtures(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", "..", "internal", "adapter", "testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runsIn(t *testing.T, path string) []*result.Run {
	t.Helper()
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// Three environments' pgbench outputs, imported by directory, compare like
// native runs. The peaks are the medians of the two 4-client repetitions read
// off the fixtures: sync-commit-on 283.762631 and 228.205205 → 256.0;
// sync-commit-off 257.708305 and 326.571916 → 292.1.
func TestImportThreeEnvironmentsThenComparePeak(t *testing.T) {
	dir := t.TempDir()
	for _, env := range []string{"sync-commit-on", "sync-commit-off", "sync-commit-local"} {
		o := fairbench(t, dir, "import", "--study", "envs", "--target", env, fixtures(t, "pgbench", "envs", env))
		if o.code != 0 {
			t.Fatalf("import %s: %s", env, o.stderr)
		}
		if !strings.Contains(o.stderr, "4 runs imported") {
			t.Fatalf("import %s: %s", env, o.stderr)
		}
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 12 {
		t.Fatalf("%d runs stored, want 12", len(runs))
	}
	reps := map[string]int{}
	for _, r := range runs {
		if r.Source != "pgbench" || r.Kind != "tpcb" || r.StudyName != "envs" {
			t.Fatalf("run %d: source %q kind %q study %q", r.ID, r.Source, r.Kind, r.StudyName)
		}
		reps[r.Target+"/"+string(rune('0'+r.Clients))+"/"+string(rune('0'+r.Repetition))]++
	}
	if reps["sync-commit-on/4/2"] != 1 || reps["sync-commit-local/1/1"] != 1 {
		t.Fatalf("repetitions not numbered per cell: %v", reps)
	}

	o := fairbench(t, dir, "compare", "--study", "envs", "--baseline", "sync-commit-on", "--peak")
	if o.code != 0 {
		t.Fatalf("compare: %s", o.stderr)
	}
	for _, want := range []string{"sync-commit-on (baseline)", "256.0 (4)", "292.1 (4)", "-14.1"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("compare --peak output lacks %q:\n%s", want, o.stdout)
		}
	}
	o = fairbench(t, dir, "report", "--study", "envs")
	if o.code != 0 || !strings.Contains(o.stdout, "sync-commit-off") {
		t.Fatalf("report: %d %s %s", o.code, o.stdout, o.stderr)
	}
}

// One truncated file among good ones: the import names the file and line and
// stores nothing at all.
func TestImportRejectsTruncatedOutputAndStoresNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "outputs")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(fixtures(t, "pgbench", "pg15-plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "a-good.txt"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	// pg15-plain.txt cut after its 11th line, "number of transactions actually processed".
	lines := strings.SplitAfter(string(good), "\n")
	if err := os.WriteFile(filepath.Join(in, "b-cut.txt"), []byte(strings.Join(lines[:11], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "import", "--target", "x", in)
	if o.code != 1 {
		t.Fatalf("exit %d, want 1: %s", o.code, o.stderr)
	}
	for _, want := range []string{"nothing imported", "b-cut.txt:11", "latency average"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("error lacks %q: %s", want, o.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, defaultResults)); err == nil {
		if n := len(runsIn(t, filepath.Join(dir, defaultResults))); n != 0 {
			t.Fatalf("%d runs stored from a failed import", n)
		}
	}

	// Unknown text: the error lists what is supported.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = fairbench(t, dir, "import", "--target", "x", "notes.txt")
	if o.code != 1 || !strings.Contains(o.stderr, "notes.txt: not an output fairbench can read; supported: pgbench") {
		t.Fatalf("unknown format: %d %s", o.code, o.stderr)
	}
}

// sysbench does not print its test: import asks for --mode, then stores the
// run with oltp's parameters so it lines up with native oltp runs.
func TestImportSysbenchNeedsMode(t *testing.T) {
	dir := t.TempDir()
	f := fixtures(t, "sysbench", "sb1-oltp-read-write-interval.txt")
	o := fairbench(t, dir, "import", "--target", "maria", f)
	if o.code != 1 || !strings.Contains(o.stderr, "--mode") {
		t.Fatalf("without --mode: %d %s", o.code, o.stderr)
	}
	o = fairbench(t, dir, "import", "--target", "maria", "--mode", "read_write", "--set", "tables=2", "--set", "table_size=10000", f)
	if o.code != 0 {
		t.Fatalf("import: %s", o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 1 || runs[0].Kind != "oltp" || runs[0].Params["mode"] != "read_write" || runs[0].Params["tables"] != int64(2) {
		t.Fatalf("runs: %+v", runs[0].Params)
	}
	// 532 transactions over 4.0203 s, 132.32 per second as sysbench printed.
	if runs[0].Summary.Throughput != 132.32 || runs[0].Clients != 4 {
		t.Fatalf("summary %+v clients %d", runs[0].Summary, runs[0].Clients)
	}
}

// The flags a tool declares for import reach its runs' parameters; a flag of
// another tool is refused, naming the tools it is for, and nothing is stored.
func TestImportToolFlags(t *testing.T) {
	dir := t.TempDir()
	mt := fixtures(t, "memtier_benchmark", "mt23-default.txt")
	o := fairbench(t, dir, "import", "--target", "r", "-P", "1", "-d", "32", "--scale", "10", mt)
	if o.code != 1 || !strings.Contains(o.stderr, "--scale is not a flag of memtier_benchmark outputs") ||
		!strings.Contains(o.stderr, "pgbench") || !strings.Contains(o.stderr, "-P/--pipeline, -d/--data-size") {
		t.Fatalf("--scale with a memtier output: exit %d\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, defaultResults)); err == nil {
		if runs := runsIn(t, filepath.Join(dir, defaultResults)); len(runs) != 0 {
			t.Fatalf("%d runs stored", len(runs))
		}
	}
	o = fairbench(t, dir, "import", "--target", "r", "--pipeline", "4", "-d", "64", mt)
	if o.code != 0 {
		t.Fatalf("import: %s", o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 1 || runs[0].Params["pipeline"] != int64(4) || runs[0].Params["data_size"] != int64(64) {
		t.Fatalf("runs: %d, params %v", len(runs), runs[0].Params)
	}
	o = fairbench(t, dir, "import", "--target", "r", "-M", "simple", "-s", "2", fixtures(t, "pgbench", "pg15-plain.txt"))
	if o.code != 0 {
		t.Fatalf("pgbench import: %s", o.stderr)
	}
	o = fairbench(t, dir, "import", "--target", "r", "--mode", "read_writ", fixtures(t, "sysbench", "sb1-oltp-read-write-interval.txt"))
	if o.code != 1 || !strings.Contains(o.stderr, `--mode: mode = "read_writ" is not one of`) {
		t.Fatalf("--mode outside sysbench's domain: exit %d\n%s", o.code, o.stderr)
	}
}

// A study runs pgbench and fairbench's tpcb on the same PostgreSQL: two rows
// with the same parameters in one report. pgbench runs with -l into a
// directory of its own, so its run has a latency distribution like the
// native one; its warm-up's logs are discarded.
func TestStudyRunsPgbenchBesideTpcb(t *testing.T) {
	pg, dir := pgbenchBesideTpcb(t, "side by side", "1s", "3s", 2)
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s", o.stderr)
	}
	if strings.Contains(o.stderr, testenv.Password(t, pg)) {
		t.Fatal("the password appears in the output")
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	tool, native := runs[0], runs[1]
	if tool.Source != "pgbench" || native.Source != "fairbench" || tool.Status != result.StatusOK {
		t.Fatalf("sources %q %q status %q %s", tool.Source, native.Source, tool.Status, tool.Error)
	}
	if tool.Kind != "tpcb" || tool.Summary.Transactions == 0 || tool.Summary.Throughput <= 0 {
		t.Fatalf("pgbench run: kind %q summary %+v", tool.Kind, tool.Summary)
	}
	cmd, _ := tool.Env.Extra["command"].(string)
	if !strings.HasPrefix(cmd, "pgbench ") || !strings.Contains(cmd, " -S ") || strings.Contains(cmd, testenv.Password(t, pg)) {
		t.Fatalf("stored command %q", cmd)
	}
	if len(tool.Series) < 2 {
		t.Fatalf("pgbench's per-second series not stored: %v", tool.Series)
	}
	// The histogram from the -l logs: every processed transaction, and
	// percentiles in order around pgbench's own latency average.
	logDir := ""
	for _, a := range strings.Fields(cmd) {
		if p, ok := strings.CutPrefix(a, "--log-prefix="); ok {
			logDir = filepath.Dir(p)
		}
	}
	if !strings.Contains(cmd, " -l ") || logDir == "" || logDir == "." {
		t.Fatalf("pgbench ran without -l --log-prefix=DIR/...: %q", cmd)
	}
	if _, err := os.Stat(logDir); !os.IsNotExist(err) {
		t.Errorf("pgbench's log directory %s is left behind (%v)", logDir, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "pgbench_log*")); len(left) > 0 {
		t.Errorf("pgbench logs written into the working directory: %v", left)
	}
	if len(tool.Ops) != 1 || tool.Ops[0].Histogram == nil {
		t.Fatalf("pgbench run stored without a histogram: %+v", tool.Ops)
	}
	h, err := hist.Decode(tool.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	s := tool.Summary
	if h.TotalCount() != s.Transactions {
		t.Fatalf("histogram holds %d transactions, pgbench processed %d (warm-up logs mixed in, or some missing)", h.TotalCount(), s.Transactions)
	}
	if !(s.LatencyMin > 0 && s.LatencyMin <= s.P50 && s.P50 <= s.P95 && s.P95 <= s.P99 && s.P99 <= s.Max) {
		t.Fatalf("percentiles out of order: min %v p50 %v p95 %v p99 %v max %v", s.LatencyMin, s.P50, s.P95, s.P99, s.Max)
	}
	if s.LatencyMean < s.LatencyMin || s.LatencyMean > s.Max || math.Abs(h.Mean()-s.LatencyMean) > 0.02*s.LatencyMean+1 {
		t.Fatalf("pgbench's latency average %v µs does not match its logs: min %v, mean %v, max %v", s.LatencyMean, s.LatencyMin, h.Mean(), s.Max)
	}
	for _, d := range tool.Deviations {
		if strings.Contains(d, "no latency distribution") {
			t.Fatalf("deviation kept: %q", d)
		}
	}
	o = fairbench(t, dir, "report")
	if o.code != 0 {
		t.Fatal(o.stderr)
	}
	var rows []string
	for _, l := range strings.Split(cellTable(o.stdout), "\n") {
		if l == "" {
			break // the table of cells ends; the per-cell tables after it repeat the rows
		}
		if strings.HasPrefix(l, "pg ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 || !strings.Contains(rows[0]+rows[1], "pgbench") || !strings.Contains(rows[0]+rows[1], "fairbench") {
		t.Fatalf("want one pgbench row and one fairbench row:\n%s", o.stdout)
	}
	// Same parameters: they differ only by workload, so no params column value differs.
	if !strings.Contains(o.stdout, "mode=select-only") {
		t.Fatalf("shared parameters not shown:\n%s", o.stdout)
	}
}

// A tool that is not installed stops the study before anything runs.
func TestStudyWithMissingToolFailsBeforeStart(t *testing.T) {
	dir := t.TempDir()
	st := `[study]
duration = "1s"
[[target]]
name = "disk"
url = "file:///tmp"
[[workload]]
tool = "fio"
preset = "randrw"
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "study.toml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir()) // nothing on PATH
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "fio not found: apt-get install fio") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	if strings.Contains(string(out), "[1/1]") {
		t.Fatalf("the study started:\n%s", out)
	}
}

// pgbenchBesideTpcb writes study.toml into a new directory: pgbench as a tool
// cell and fairbench's tpcb, select-only at the given clients, on a fresh
// PostgreSQL database whose URL it returns. Without pgbench the test is
// skipped, or fails where the servers are required.
func pgbenchBesideTpcb(t *testing.T, name, warmup, duration string, clients int) (pg, dir string) {
	t.Helper()
	testenv.Tool(t, "pgbench")
	pg = testenv.FreshPostgres(t)
	dir = t.TempDir()
	st := fmt.Sprintf(`[study]
name = %q
warmup = %q
duration = %q

[[target]]
name = "pg"
url = %q

[[workload]]
name = "pgbench"
tool = "pgbench"
mode = "select-only"
clients = [%d]

[[workload]]
name = "fairbench"
kind = "tpcb"
mode = "select-only"
clients = [%d]
`, name, warmup, duration, pg, clients, clients)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	return pg, dir
}
