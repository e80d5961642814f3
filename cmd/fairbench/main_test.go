package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

var binary string

// TestMain builds the real binary once: these tests run fairbench as a user does.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fairbench-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "fairbench")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// endToEnd skips a test under -short where it runs the built binary: the
// race pass (go test -race -short) would run the same binary, built without
// the race detector, and find nothing the plain pass did not. Every run of
// the binary (fairbenchEnv) calls it, so that a test's in-process part still
// runs under the detector before its first command.
func endToEnd(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the fairbench binary end to end (the plain pass runs it)")
	}
}

type outcome struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

func fairbench(t *testing.T, dir string, args ...string) outcome {
	t.Helper()
	return fairbenchEnv(t, dir, nil, args...)
}

// fairbenchEnv is fairbench with env (NAME=VALUE) added to the command's
// environment: a test that runs in parallel with others cannot t.Setenv.
func fairbenchEnv(t *testing.T, dir string, env []string, args ...string) outcome {
	t.Helper()
	endToEnd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	o := outcome{stdout: so.String(), stderr: se.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}

// assertOneLineError checks the user sees one line naming the problem, no stack trace.
func assertOneLineError(t *testing.T, o outcome, want ...string) {
	t.Helper()
	if o.code != 1 {
		t.Fatalf("exit code %d, want 1\nstderr: %s", o.code, o.stderr)
	}
	lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line of error, got %d:\n%s", len(lines), o.stderr)
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Fatalf("error %q does not mention %q", lines[0], w)
		}
	}
	for _, bad := range []string{"panic", "goroutine", ".go:"} {
		if strings.Contains(o.stderr, bad) {
			t.Fatalf("error output looks like a crash (%q):\n%s", bad, o.stderr)
		}
	}
}

func TestAdHocPostgresRunPrintsPgbenchFieldsAndNoPassword(t *testing.T) {
	url := testenv.FreshPostgres(t)
	password := testenv.Password(t, url)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", url, "--workload", "tpcb", "--mode", "select-only",
		"--scale", "1", "-c", "2", "-T", "2s", "-P", "1", "-M", "prepared")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, field := range []string{
		"transaction type: <builtin: select only>", "scaling factor: 1", "query mode: prepared",
		"number of clients: 2", "duration: 2 s", "number of transactions actually processed: ",
		"number of failed transactions: 0 (0.000%)", "latency average = ", "latency stddev = ",
		"initial connection time = ", "tps = ", "latency p50 = ", "latency p95 = ", "latency p99 = ", "latency max = ",
	} {
		if !strings.Contains(o.stdout, field) {
			t.Errorf("summary lacks %q:\n%s", field, o.stdout)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^  progress: `).FindAllString(o.stderr, -1)); n < 2 {
		t.Errorf("want per-second progress with -P 1, got %d lines:\n%s", n, o.stderr)
	}
	rep := fairbench(t, dir, "report", "--format", "md", "-o", "r.md")
	if rep.code != 0 {
		t.Fatalf("report: %s", rep.stderr)
	}
	for name, text := range map[string]string{"stdout": o.stdout, "stderr": o.stderr + rep.stderr + rep.stdout,
		"results file": readAll(t, dir, "fairbench.db*"), "report": readAll(t, dir, "r.md")} {
		if strings.Contains(text, password) {
			t.Errorf("the password appears in the %s", name)
		}
	}
	if !strings.Contains(readAll(t, dir, "r.md"), "select-only") {
		t.Error("markdown report lacks the run")
	}
}

// readAll concatenates the files matching a glob (the results file with its WAL).
func readAll(t *testing.T, dir, glob string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, glob))
	if len(files) == 0 {
		t.Fatalf("no file %s", glob)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestBadTargetsFailFastWithOneLineNamingTheTarget(t *testing.T) {
	// A listener that accepts and never answers: the connect timeout must end it.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()

	cases := map[string]string{
		"refused": "postgres://bench:s3cret-pw@" + closedAddr + "/bench?sslmode=disable",
		"silent":  "postgres://bench:s3cret-pw@" + silent.Addr().String() + "/bench?sslmode=disable",
	}
	if pg := os.Getenv("FAIRBENCH_TEST_PG"); pg != "" || os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
		u := testenv.PostgresURL(t)
		cases["wrong password"] = strings.Replace(u, ":"+testenv.Password(t, u)+"@", ":s3cret-pw@", 1)
	}
	for name, url := range cases {
		t.Run(name, func(t *testing.T) {
			o := fairbench(t, t.TempDir(), "run", "--target", url, "-T", "1s")
			assertOneLineError(t, o, "target postgres://bench:xxxxx@127.0.0.1")
			if o.took > 10*time.Second {
				t.Fatalf("took %v, want under 10 s", o.took)
			}
			if strings.Contains(o.stderr, "s3cret-pw") {
				t.Fatalf("password in the error: %s", o.stderr)
			}
		})
	}
}

func TestMalformedStudyIsReportedWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	study := "[study]\nname = \"x\"\n\n[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n\n[[workload]]\nkind = \"tpcb\"\nscale = \"ten\"\n"
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte(study), 0o644)
	for _, cmd := range []string{"validate", "run"} {
		o := fairbench(t, dir, cmd, "bad.toml")
		assertOneLineError(t, o, "bad.toml:10", "scale")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.db")); err == nil {
		t.Fatal("a malformed study must not touch any target")
	}
}

const sqliteStudy = `[study]
name = "kill-test"
repetitions = 3
warmup = "0s"
duration = "1s"

[[target]]
name = "one"
url = "sqlite:one.db"

[[workload]]
kind = "tpcb"
mode = "select-only"
clients = [1, 2]
`

// startStudy starts `fairbench run` on the SQLite study and waits until n runs are stored.
func startStudy(t *testing.T, dir string, n int) *exec.Cmd {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte(sqliteStudy), 0o644)
	cmd := exec.Command(binary, "run", "s.toml")
	cmd.Dir = dir
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Progress lines announce each cell; after cell n+1 starts, n runs are stored.
	sc := bufio.NewScanner(stderr)
	cells := 0
	deadline := time.Now().Add(2 * time.Minute)
	for sc.Scan() && time.Now().Before(deadline) {
		if strings.HasPrefix(sc.Text(), "[") {
			cells++
			if cells == n+1 {
				break
			}
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	time.Sleep(300 * time.Millisecond) // into the measured phase of cell n+1
	return cmd
}

// storedRuns reads every run of the default results file in dir (runsIn reads any path).
func storedRuns(t *testing.T, dir string) []*result.Run {
	t.Helper()
	return runsIn(t, filepath.Join(dir, "fairbench.db"))
}

func TestSIGKILLKeepsEveryEarlierRun(t *testing.T) {
	dir := t.TempDir()
	cmd := startStudy(t, dir, 2)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	runs := storedRuns(t, dir)
	if len(runs) != 2 {
		t.Fatalf("want the 2 finished runs, got %d", len(runs))
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Summary.Transactions == 0 || len(r.Ops) == 0 || len(r.Series) == 0 {
			t.Fatalf("run %d unreadable or empty: %+v", r.ID, r.Summary)
		}
	}
}

func TestInterruptKeepsRunsAndResumeFinishesTheStudy(t *testing.T) {
	dir := t.TempDir()
	cmd := startStudy(t, dir, 2)
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	// Finishing the study would store 6 runs; the 3 checked below prove the
	// stop, and the deadline catches a hang.
	if time.Since(start) > testenv.StopDeadline {
		t.Fatalf("took %v to stop after Ctrl-C", time.Since(start))
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit: %v, want code %d", err, exitInterrupted)
	}
	runs := storedRuns(t, dir)
	if len(runs) != 3 || runs[2].Status != result.StatusInterrupted {
		t.Fatalf("want 2 finished runs and the interrupted one, got %d", len(runs))
	}
	o := fairbench(t, dir, "run", "s.toml", "--resume")
	if o.code != 0 {
		t.Fatalf("resume: %s", o.stderr)
	}
	if got := strings.Count(o.stderr, "already done, skipped"); got != 2 {
		t.Fatalf("resume skipped %d cells, want 2:\n%s", got, o.stderr)
	}
	ok := 0
	for _, r := range storedRuns(t, dir) {
		if r.Status == result.StatusOK {
			ok++
		}
	}
	if ok != 6 {
		t.Fatalf("want all 6 cells ok after resuming, got %d", ok)
	}
}

// The README's first command: the demo on the embedded default leaves results and
// a Markdown report covering both configurations, every clients level and both repetitions.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo takes about 2 minutes")
	}
	t.Parallel() // minutes, alone with its own files: beside the HammerDB tests
	dir := t.TempDir()
	o := fairbench(t, dir, "demo")
	if o.code != 0 {
		t.Fatalf("demo failed: %s", o.stderr)
	}
	runs := storedRuns(t, dir)
	type cell struct {
		target, mode string
		clients, rep int
	}
	seen := map[cell]bool{}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Summary.Transactions == 0 {
			t.Fatalf("run %d: %s %s", r.ID, r.Status, r.Error)
		}
		seen[cell{r.Target, r.Params["mode"].(string), r.Clients, r.Repetition}] = true
		if !r.Env.EngineInProcess() {
			t.Errorf("run %d: SQLite not recorded as running in fairbench's process", r.ID)
		}
	}
	for _, target := range []string{"wal-normal", "delete-full"} {
		for _, mode := range []string{"select-only", "tpcb-like"} {
			for _, c := range []int{1, 2, 4} {
				for rep := 1; rep <= 2; rep++ {
					if !seen[cell{target, mode, c, rep}] {
						t.Errorf("missing run %s %s clients=%d rep=%d", target, mode, c, rep)
					}
				}
			}
		}
	}
	md := readAll(t, dir, "fairbench-demo.md")
	for _, want := range []string{"wal-normal", "delete-full", "select-only", "tpcb-like"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(md, "| ok"); n < 24 {
		t.Errorf("report's run list shows %d ok runs, want 24", n)
	}
	// Embedded SQLite's work is fairbench's CPU: no saturated-load-generator
	// or client/server warnings, a note instead.
	if strings.Contains(md, "**load-generator**") || strings.Contains(md, "client and server share a host") {
		t.Error("report warns of load-generator saturation or a shared host for an embedded engine")
	}
	if !strings.Contains(md, "embedded engine, inside fairbench's process") {
		t.Error("report lacks the embedded-engine note")
	}
	if !strings.Contains(o.stdout, "wal-normal") || !strings.Contains(o.stderr, "progress:") {
		t.Error("demo must print progress and a final table")
	}
	// The HTML report, as a reader opens it: from file://, in Debian's Chromium.
	shot := filepath.Join(testenv.ArtifactDir(t, "../.."), "demo-report.png")
	pc := testenv.CheckPage(t, filepath.Join(dir, "fairbench-demo.html"), shot)
	if len(pc.ConsoleErrors) > 0 || len(pc.Requests) > 0 {
		t.Errorf("demo report: console errors %q, network requests %q", pc.ConsoleErrors, pc.Requests)
	}
	// 2 modes × (throughput + p50 + p95 + p99) charts at least, every one drawn.
	if pc.Charts < 8 || pc.EmptyCharts > 0 {
		t.Errorf("demo report: %d charts, %d of them empty", pc.Charts, pc.EmptyCharts)
	}
	// delete-full against wal-normal: 2 modes × 3 clients levels.
	if pc.CmpRows != 6 {
		t.Errorf("demo report: %d comparison rows, want 6", pc.CmpRows)
	}
	// Readable at 100 % zoom, findings on the first screen.
	if pc.ChartTexts == 0 || pc.ChartFontPx < 11 {
		t.Errorf("demo report: smallest chart text %.1f px over %d texts, want ≥ 11 px", pc.ChartFontPx, pc.ChartTexts)
	}
	if pc.FindingsTop < 0 || pc.FindingsTop >= pc.ViewportHeight {
		t.Errorf("demo report: findings at %.0f px, not within the first screen (%.0f px)", pc.FindingsTop, pc.ViewportHeight)
	}
	t.Logf("demo report screenshot: %s", shot)
}

func TestReportNeverOverwritesAForeignFile(t *testing.T) {
	dir := t.TempDir()
	cmd := startStudy(t, dir, 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("my notes"), 0o644)
	o := fairbench(t, dir, "report", "--format", "md", "-o", "notes.md")
	assertOneLineError(t, o, "notes.md")
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "my notes" {
		t.Fatal("a file fairbench did not write was overwritten")
	}
	if o := fairbench(t, dir, "report", "--format", "md", "-o", "mine.md"); o.code != 0 {
		t.Fatal(o.stderr)
	}
	if o := fairbench(t, dir, "report", "--format", "md", "-o", "mine.md"); o.code != 0 {
		t.Fatalf("rewriting its own report must work: %s", o.stderr)
	}
}

// Credentials from the password file (PGPASSFILE) and from PGPASSWORD work as with
// libpq, and the target URL then carries no password at all.
func TestPasswordFromPassfileAndEnvironment(t *testing.T) {
	withPw := testenv.FreshPostgres(t)
	password := testenv.Password(t, withPw)
	noPw := strings.Replace(withPw, ":"+password+"@", "@", 1)
	dir := t.TempDir()
	passfile := filepath.Join(dir, "pgpass")
	os.WriteFile(passfile, []byte("127.0.0.1:*:*:bench:"+password+"\n"), 0o600)
	for name, env := range map[string]string{"PGPASSFILE": passfile, "PGPASSWORD": password} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(binary, "run", "--target", noPw, "-S", "-c", "1", "-T", "1s")
			cmd.Dir = dir
			// Later entries win: clear both, then set the one under test.
			cmd.Env = append(os.Environ(), "PGPASSWORD=", "PGPASSFILE="+filepath.Join(dir, "none"), name+"="+env)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(string(out), "number of transactions actually processed") {
				t.Fatalf("no summary:\n%s", out)
			}
		})
	}
}
