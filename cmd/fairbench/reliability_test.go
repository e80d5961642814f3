package main

// Faults and interruptions as a user meets them (docs/reliability.md): each
// test runs the real binary, sends a signal or breaks the results file at a
// given phase, and asserts the message, the exit code and what is stored.

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// started is a fairbench process whose standard error is read line by line.
type started struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan string
}

// startUntil starts fairbench in dir and returns once a line of its standard
// error contains want (or fails the test after a minute).
func startUntil(t *testing.T, dir, want string, args ...string) *started {
	t.Helper()
	return startUntilLine(t, dir, want, func(l string) bool { return strings.Contains(l, want) }, args...)
}

// progressAt matches the -P progress lines of second at or later: a tick
// prints the time it fired, 1.1 s rather than 1.0 s on a busy machine.
func progressAt(at float64) func(string) bool {
	return func(l string) bool {
		_, rest, ok := strings.Cut(l, "progress: ")
		var s float64
		_, err := fmt.Sscanf(rest, "%g s", &s)
		return ok && err == nil && s >= at
	}
}

// startUntilLine is startUntil for the first stderr line match accepts;
// what describes it in failures.
func startUntilLine(t *testing.T, dir, what string, match func(string) bool, args ...string) *started {
	t.Helper()
	return startUntilLineEnv(t, dir, nil, what, match, args...)
}

// startUntilLineEnv is startUntilLine with env (NAME=VALUE) added to the
// command's environment, as fairbenchEnv adds it.
func startUntilLineEnv(t *testing.T, dir string, env []string, what string, match func(string) bool, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(binary, args...), lines: make(chan string, 1024)}
	s.cmd.Dir = dir
	if env != nil {
		s.cmd.Env = append(os.Environ(), env...)
	}
	s.cmd.Stdout = &s.stdout
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
		close(s.lines)
	}()
	deadline := time.After(time.Minute)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("fairbench ended before printing %q:\n%s", what, s.errText())
			}
			if match(l) {
				return s
			}
		case <-deadline:
			t.Fatalf("no %q within a minute:\n%s", what, s.errText())
		}
	}
}

func (s *started) errText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends sig and waits; it returns the exit code and how long the stop took.
func (s *started) stop(t *testing.T, sig os.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if sig != nil {
		s.cmd.Process.Signal(sig)
	}
	err := s.cmd.Wait()
	for range s.lines { // the rest of standard error
	}
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), took
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, took
}

// Ctrl-C or SIGTERM during the warm-up: no numbers are printed (no summary
// over a duration of 0), the output says nothing was measured, the run is
// stored as interrupted with no operations, and the exit code is 130.
func TestSignalDuringWarmupPrintsNoSummary(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := startUntil(t, dir, "warm-up: ", "run", "--target", "sqlite:w.db", "--workload", "tpcb",
				"--mode", "select-only", "-c", "2", "--warmup", "60s", "-T", "5s", "-P", "1")
			code, took := p.stop(t, sig)
			// The warm-up alone would last 60 s.
			if code != exitInterrupted || took > testenv.StopDeadline {
				t.Fatalf("exit %d after %v, want %d within %v\n%s", code, took, exitInterrupted, testenv.StopDeadline, p.errText())
			}
			out := p.stdout.String()
			if !strings.Contains(out, "interrupted during the warm-up: nothing was measured") || strings.Contains(out, "tps") {
				t.Fatalf("stdout must say nothing was measured and print no numbers:\n%s", out)
			}
			runs := storedRuns(t, dir)
			if len(runs) != 1 || runs[0].Status != result.StatusInterrupted || runs[0].Summary.Transactions != 0 || len(runs[0].Ops) != 0 {
				t.Fatalf("want one interrupted run without numbers, got %d: %+v", len(runs), runs)
			}
		})
	}
}

// SIGTERM in the measured phase stops like Ctrl-C: the run so far is kept,
// marked interrupted, and printed.
func TestSIGTERMDuringMeasurementKeepsTheRun(t *testing.T) {
	dir := t.TempDir()
	p := startUntilLine(t, dir, "progress: 1.0 s", progressAt(1), "run", "--target", "sqlite:m.db", "--workload", "tpcb",
		"--mode", "select-only", "-c", "1", "-T", "60s", "-P", "1")
	code, took := p.stop(t, syscall.SIGTERM)
	// The run would last 60 s.
	if code != exitInterrupted || took > testenv.StopDeadline {
		t.Fatalf("exit %d after %v, want %d within %v\n%s", code, took, exitInterrupted, testenv.StopDeadline, p.errText())
	}
	if !strings.Contains(p.stdout.String(), "tps = ") || !strings.Contains(p.errText(), "interrupted after") {
		t.Fatalf("the measured part must be printed and named interrupted:\n%s\n%s", p.stdout.String(), p.errText())
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 || runs[0].Status != result.StatusInterrupted || runs[0].Summary.Transactions == 0 || len(runs[0].Series) == 0 {
		t.Fatalf("want the interrupted run with its numbers, got %+v", runs)
	}
}

// markerState reads the state fairbench recorded for its tpcb dataset.
func markerState(t *testing.T, target string) string {
	t.Helper()
	c := testenv.Connect(t, target, driver.Options{}).(driver.SQL)
	defer c.Close(t.Context())
	for _, st := range []string{"loading", "ready"} {
		n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM fairbench_datasets WHERE state = '"+st+"'")
		if err != nil {
			t.Fatalf("reading the dataset marker: %v", err)
		}
		if n > 0 {
			return st
		}
	}
	return "none"
}

// Ctrl-C during load: a clean stop with a message (no "unexpected EOF"),
// exit 130, the dataset recorded as loading; the next load rebuilds it. On
// SQLite, and on PostgreSQL (COPY … FREEZE interrupted).
func TestSignalDuringLoadStopsCleanlyAndTheNextLoadRebuilds(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			target, scale := "sqlite:"+filepath.Join(dir, "l.db"), "15"
			if engine == "postgres" {
				target, scale = testenv.FreshPostgres(t), "10"
			}
			args := []string{"load", "--target", target, "--workload", "tpcb", "--scale", scale}
			p := startUntil(t, dir, "rows into pgbench_tellers", args...)
			code, took := p.stop(t, os.Interrupt)
			// A finished load would leave the marker "ready", checked below.
			if code != exitInterrupted || took > testenv.StopDeadline {
				t.Fatalf("exit %d after %v, want %d within %v\n%s", code, took, exitInterrupted, testenv.StopDeadline, p.errText())
			}
			stderr := p.errText()
			if !strings.Contains(stderr, "fairbench: load interrupted") || !strings.Contains(stderr, "the next load or run of the same workload resumes or rebuilds it") ||
				strings.Contains(stderr, "EOF") {
				t.Fatalf("want a clean interruption message:\n%s", stderr)
			}
			if st := markerState(t, target); st != "loading" {
				t.Fatalf("marker %q after an interrupted load, want loading", st)
			}
			o := fairbench(t, dir, args...)
			if o.code != 0 || !strings.Contains(o.stderr, "loaded scale "+scale) {
				t.Fatalf("the next load must rebuild the data: exit %d\n%s", o.code, o.stderr)
			}
			if st := markerState(t, target); st != "ready" {
				t.Fatalf("marker %q after the rebuild, want ready", st)
			}
		})
	}
}

// validate and import, given a FIFO nobody writes to, refuse it at once
// naming it, and store nothing: they once blocked opening it until a signal
// (SIGINT or SIGTERM then stopped them, exit 130).
func TestValidateAndImportRefuseAFIFO(t *testing.T) {
	for _, name := range []string{"validate", "import"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "input")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"validate", "input"}
			if name == "import" {
				args = []string{"import", "--target", "x", "input"}
			}
			ctx, cancel := context.WithTimeout(context.Background(), testenv.StopDeadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Dir = dir
			var se bytes.Buffer
			cmd.Stderr = &se
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("%s blocked on the FIFO for %v", name, testenv.StopDeadline)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(se.String(), "input: a FIFO (named pipe); give a regular file") {
				t.Fatalf("exit %v, want 1 naming the FIFO\n%s", err, se.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "fairbench.db")); err == nil && name == "import" {
				if runs := storedRuns(t, dir); len(runs) != 0 {
					t.Fatalf("a refused import stored %d runs", len(runs))
				}
			}
		})
	}
}

// A results file locked past the busy timeout when the run ends: the run goes
// to a fallback file beside it (named on standard error), the command exits
// 1, and import stores it back once — nothing lost, nothing doubled.
func TestLockedResultsFileWritesAFallbackThatImportReadsBack(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "fairbench.db")
	p := startUntilLine(t, dir, "progress: 1.0 s", progressAt(1), "run", "--target", "sqlite:f.db", "--workload", "tpcb",
		"--mode", "select-only", "-c", "1", "-T", "2s", "-P", "1")
	// Another process takes the write lock and keeps it past fairbench's 5 s busy timeout.
	unlock := holdWriteLock(t, results)
	code, _ := p.stop(t, nil)
	unlock()
	stderr := p.errText()
	if code != 1 || !strings.Contains(stderr, "database is locked") || !strings.Contains(stderr, "0 runs stored in fairbench.db") {
		t.Fatalf("exit %d, want 1 with the lock named:\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fairbench.db.unsaved-*.json"))
	if len(files) != 1 || !strings.Contains(stderr, "written to "+filepath.Base(files[0])) {
		t.Fatalf("fallback files %v, stderr must name it:\n%s", files, stderr)
	}
	if !strings.Contains(p.stdout.String(), "tps = ") {
		t.Fatalf("the measured run must still be printed:\n%s", p.stdout.String())
	}
	for i := 0; i < 2; i++ { // the second import finds the run already there
		o := fairbench(t, dir, "import", files[0])
		if o.code != 0 {
			t.Fatalf("import of the fallback file: exit %d\n%s", o.code, o.stderr)
		}
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 || runs[0].Status != result.StatusOK || runs[0].Summary.Transactions == 0 || len(runs[0].Series) == 0 || len(runs[0].Ops[0].Histogram) == 0 {
		t.Fatalf("want the one run back with its numbers, got %d: %+v", len(runs), runs)
	}
	if o := fairbench(t, dir, "report", "--format", "md", "-o", "r.md"); o.code != 0 {
		t.Fatalf("report after import: %s", o.stderr)
	}
}

// One corrupt row in the results file: report still works, for the other
// runs, and warns naming the run it skipped.
func TestCorruptRowDoesNotBreakReport(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		if o := fairbench(t, dir, "run", "--target", "sqlite:c.db", "--workload", "tpcb", "--mode", "select-only", "-c", "1", "-T", "1s"); o.code != 0 {
			t.Fatalf("run: %s", o.stderr)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE runs SET summary = '{\"transactions\": ' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := fairbench(t, dir, "report", "--format", "md", "-o", "r.md")
	if o.code != 0 {
		t.Fatalf("report failed on one corrupt row: %s", o.stderr)
	}
	if !strings.Contains(o.stderr, "run 1 (target sqlite:c.db, workload tpcb, clients 1) skipped") {
		t.Fatalf("no warning naming run 1:\n%s", o.stderr)
	}
}

// In a study, a run the locked results file refuses goes to the fallback file
// and the study goes on; once the lock is gone the later runs are stored as
// usual. Importing the fallback file completes the study in the results file
// (--resume then has nothing left to run), and into a new results file it
// brings its study along.
func TestStudyGoesOnPastARefusedRunAndImportCompletesIt(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "fairbench.db")
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte(sqliteStudy), 0o644)
	p := startUntil(t, dir, "[2/6]", "run", "s.toml")
	unlock := holdWriteLock(t, results)
	for l := range p.lines { // the run of cell 2 is refused
		if strings.Contains(l, "the run is written to") {
			break
		}
	}
	unlock()
	code, _ := p.stop(t, nil)
	stderr := p.errText()
	if code != 1 || !strings.Contains(stderr, "5 runs stored in fairbench.db") || !strings.Contains(stderr, "1 run could not be stored there") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fairbench.db.unsaved-*.json"))
	if len(files) != 1 {
		t.Fatalf("fallback files: %v", files)
	}
	if o := fairbench(t, dir, "import", files[0]); o.code != 0 {
		t.Fatalf("import: %s", o.stderr)
	}
	if runs := storedRuns(t, dir); len(runs) != 6 {
		t.Fatalf("%d runs after the import, want 6", len(runs))
	}
	if o := fairbench(t, dir, "run", "s.toml", "--resume"); o.code != 0 || strings.Count(o.stderr, "already done, skipped") != 6 {
		t.Fatalf("resume after the import must find every cell done: exit %d\n%s", o.code, o.stderr)
	}
	if o := fairbench(t, dir, "import", "--results", "other.db", files[0]); o.code != 0 {
		t.Fatalf("import into a new file: %s", o.stderr)
	}
	if o := fairbench(t, dir, "report", "--results", "other.db", "--format", "md", "-o", "other.md"); o.code != 0 {
		t.Fatalf("report of the new file: %s", o.stderr)
	}
	if md := readAll(t, dir, "other.md"); !strings.Contains(md, "kill-test") {
		t.Fatalf("the study did not come along:\n%.600s", md)
	}
}

// Ctrl-C or SIGTERM while the finished run is being stored (here: waiting for
// a results file another process holds locked): the store is not abandoned;
// the run is stored whole once the lock is released, and as the signal came
// after the last cell, the command ends normally.
func TestSignalWhileStoringKeepsTheRun(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			results := filepath.Join(dir, "fairbench.db")
			p := startUntilLine(t, dir, "progress: 1.0 s", progressAt(1), "run", "--target", "sqlite:s.db", "--workload", "tpcb",
				"--mode", "select-only", "-c", "1", "-T", "2s", "-P", "1")
			unlock := holdWriteLock(t, results)
			for l := range p.lines { // the measured phase is over: storing now
				if progressAt(2)(l) {
					break
				}
			}
			time.Sleep(500 * time.Millisecond)
			p.cmd.Process.Signal(sig)
			time.Sleep(time.Second)
			unlock()
			code, _ := p.stop(t, nil)
			// Nothing was left undone when the signal came: the run finishes
			// storing and the command ends as it would have, with exit 0.
			if code != 0 || !strings.Contains(p.errText(), "1 run stored in fairbench.db") {
				t.Fatalf("exit %d\n%s", code, p.errText())
			}
			runs := storedRuns(t, dir)
			if len(runs) != 1 || runs[0].Status != result.StatusOK || runs[0].Summary.Transactions == 0 || len(runs[0].Series) == 0 {
				t.Fatalf("want the finished run stored whole, got %d runs\n%s", len(runs), p.errText())
			}
		})
	}
}

// The outage thresholds are shares: anything else is refused before a run.
func TestOutageThresholdFlagsAreShares(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"--max-dead-ratio=1.5", "--max-error-ratio=-1", "--max-error-ratio=NaN"} {
		o := fairbench(t, dir, "run", "--target", "sqlite:x.db", "-T", "1s", bad)
		assertOneLineError(t, o, strings.SplitN(strings.TrimPrefix(bad, "--"), "=", 2)[0], "share between 0 and 1")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Fatal("a refused flag must not touch the target")
	}
}

// A read-only results file (here: owned by root, mode 0444, fairbench run as
// nobody, since root writes any file): the measured run is printed, goes to
// the fallback file beside it, named on standard error, and the command
// exits 1; import stores it back.
func TestReadOnlyResultsFileWritesAFallback(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run fairbench as another user")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	dir := t.TempDir()
	// nobody must reach the folder and run a copy of the binary from it.
	for d := dir; d != filepath.Clean(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	fb := filepath.Join(dir, "fb")
	if err := os.WriteFile(fb, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "run", "--target", "sqlite:a.db", "--workload", "tpcb", "--mode", "select-only", "-c", "1", "-T", "1s"); o.code != 0 {
		t.Fatalf("first run: %s", o.stderr)
	}
	if err := os.Chmod(filepath.Join(dir, "fairbench.db"), 0o444); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fb, "run", "--target", "sqlite:b.db", "--workload", "tpcb", "--mode", "select-only", "-c", "1", "-T", "1s")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, se.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fairbench.db.unsaved-*.json"))
	if len(files) != 1 || !strings.Contains(se.String(), filepath.Base(files[0])) || !strings.Contains(so.String(), "tps = ") {
		t.Fatalf("fallback files %v; stderr must name it and stdout show the run:\n%s\n%s", files, so.String(), se.String())
	}
	if err := os.Chmod(filepath.Join(dir, "fairbench.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "import", files[0]); o.code != 0 {
		t.Fatalf("import: %s", o.stderr)
	}
	if runs := storedRuns(t, dir); len(runs) != 2 {
		t.Fatalf("%d runs stored after the import, want 2", len(runs))
	}
}

// holdWriteLock takes the results file's write lock from another process's
// point of view (a second connection in BEGIN EXCLUSIVE, waiting up to 10 s
// for it) and keeps it until the returned unlock is called.
func holdWriteLock(t *testing.T, results string) (unlock func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+results+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(t.Context(), "ROLLBACK")
		conn.Close()
	}
}
