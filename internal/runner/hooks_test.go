package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

// runHooked runs the fake workload's cells of a study adjusted by edit and
// returns the stored runs and Run's error.
func runHooked(t *testing.T, ctx context.Context, kind, url string, reps int, edit func(*study.Study)) ([]*result.Run, error) {
	t.Helper()
	behaveMu.Lock()
	behave = quickOp
	behaveMu.Unlock()
	st := &study.Study{Name: "t", Duration: 200 * time.Millisecond, Seed: 7, Repetitions: reps,
		Targets:   []*study.Target{{Name: "f", URL: url}},
		Workloads: []*study.Workload{{Name: "w", Kind: kind, Clients: []study.ClientLevel{{N: 1}}}}}
	edit(st)
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	err = New(st, Options{Sink: sink, Every: 100 * time.Millisecond}).Run(ctx, cells)
	return sink.Runs, err
}

func quickOp(ctx context.Context, _ *rand.Rand, _ workload.Requests) (int, error) {
	time.Sleep(time.Millisecond)
	return 0, nil
}

// marker is a hook command appending its name and environment to file.
func marker(file, name string) string {
	return "echo " + name + " $FAIRBENCH_TARGET $FAIRBENCH_WORKLOAD $FAIRBENCH_CELL $FAIRBENCH_REPETITION >> " + file
}

func hookNames(recs []result.HookRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Hook)
	}
	return out
}

// useDropCaches replaces drop_caches' command (which needs root) by one
// appending to file, for the test.
func useDropCaches(t *testing.T, file string) {
	old := dropCachesCommand
	dropCachesCommand = marker(file, "drop_caches")
	t.Cleanup(func() { dropCachesCommand = old })
}

// The study's hooks run in their order around each cell, with the cell in
// their environment, and each run stores its own records: before_study
// with the first.
func TestHooksRunInOrderAndAreStoredWithEachRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "order")
	useDropCaches(t, file)
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://x", 2, func(st *study.Study) {
		st.Hooks = study.Hooks{BeforeStudy: marker(file, "before_study"), BeforeCell: marker(file, "before_cell"),
			BeforeRun: marker(file, "before_run"), AfterRun: marker(file, "after_run")}
		st.Targets[0].DropCaches = true
	})
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	want := [][]string{
		{"before_study", "before_cell", "drop_caches", "before_run", "after_run"},
		{"before_cell", "drop_caches", "before_run", "after_run"},
	}
	for i, run := range runs {
		if got := hookNames(run.Hooks); !slices.Equal(got, want[i]) {
			t.Errorf("run %d: hooks %v, want %v", i+1, got, want[i])
		}
		for _, h := range run.Hooks {
			if !h.OK() || h.ExitCode != 0 || h.Duration <= 0 || h.Started.IsZero() {
				t.Errorf("run %d: record %+v", i+1, h)
			}
		}
		if run.Status != result.StatusOK || len(run.Summary.ColdBy) != 0 {
			t.Errorf("run %d: status %s, cold by %v", i+1, run.Status, run.Summary.ColdBy)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	wantLines := []string{"before_study", "before_cell f w 1 1", "drop_caches f w 1 1", "before_run f w 1 1", "after_run f w 1 1",
		"before_cell f w 2 2", "drop_caches f w 2 2", "before_run f w 2 2", "after_run f w 2 2"}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("the commands ran as\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
}

// A failing hook fails its cell, naming the hook and the command, with its
// record stored; the study goes on to the next cell.
func TestFailingHookFailsItsCell(t *testing.T) {
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://x", 2, func(st *study.Study) {
		st.Hooks.BeforeRun = `echo something went wrong >&2; test "$FAIRBENCH_REPETITION" = 2`
	})
	if err == nil || len(runs) != 2 {
		t.Fatalf("%d runs, error %v: want 2 runs and an error", len(runs), err)
	}
	first := runs[0]
	if first.Status != result.StatusFailed || !strings.Contains(first.Error, "before_run command") ||
		!strings.Contains(first.Error, "exit status 1") || !strings.Contains(first.Error, "something went wrong") {
		t.Errorf("first run %s %q: want failed naming before_run, its exit status and its output", first.Status, first.Error)
	}
	if len(first.Hooks) != 1 || first.Hooks[0].ExitCode != 1 || first.Hooks[0].OK() || first.Hooks[0].Output != "something went wrong" {
		t.Errorf("first run's records %+v", first.Hooks)
	}
	if runs[1].Status != result.StatusOK {
		t.Errorf("second run %s %q: the study did not go on", runs[1].Status, runs[1].Error)
	}

	runs, err = runHooked(t, context.Background(), "fake-test", "fake://x", 1, func(st *study.Study) {
		st.Hooks.AfterRun = "sleep 5"
		st.Hooks.Timeout = 200 * time.Millisecond
	})
	if err == nil || len(runs) != 1 || runs[0].Status != result.StatusFailed || !strings.Contains(runs[0].Error, "after_run") ||
		!strings.Contains(runs[0].Error, "timed out after 200ms") {
		t.Errorf("after_run past its timeout: %d runs, %v", len(runs), err)
	}

	runs, err = runHooked(t, context.Background(), "fake-test", "fake://x", 1, func(st *study.Study) { st.Hooks.BeforeStudy = "exit 4" })
	if len(runs) != 0 || err == nil || !strings.Contains(err.Error(), `before_study command "exit 4" failed: exit status 4`) {
		t.Errorf("failed before_study: %d runs, %v; want none and the error", len(runs), err)
	}
}

// A password in a hook's command line or output never reaches its record.
func TestHookRecordsHaveNoSecrets(t *testing.T) {
	const pw = "hunter2pw"
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://u:"+pw+"@x", 1, func(st *study.Study) {
		st.Hooks.BeforeRun = "echo fake://u:" + pw + "@x; echo PGPASSWORD=" + pw + "; echo $FAIRBENCH_TARGET_URL"
	})
	if err != nil || len(runs) != 1 || len(runs[0].Hooks) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	rec := runs[0].Hooks[0]
	if strings.Contains(rec.Command+rec.Output, pw) || !strings.Contains(rec.Output, "fake://u:xxxxx@x") {
		t.Errorf("record holds the password or lost the URL: command %q, output %q", rec.Command, rec.Output)
	}
}

// Ctrl-C during a hook kills its process group (the command's children
// too) at once, and the study stops.
func TestInterruptKillsTheHooksProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(t.TempDir(), "child")
	go func() {
		for !fileHasData(pidFile) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	runs, err := runHooked(t, ctx, "fake-test", "fake://x", 1, func(st *study.Study) {
		st.Hooks.BeforeRun = "sleep 60 & echo $! > " + pidFile + "; wait"
	})
	if !errors.Is(err, ErrInterrupted) || len(runs) != 1 || runs[0].Status != result.StatusInterrupted {
		t.Fatalf("%d runs, %v: want the interrupted run", len(runs), err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the interruption took %s", took)
	}
	if rec := runs[0].Hooks; len(rec) != 1 || !strings.Contains(rec[0].Error, "interrupted") {
		t.Errorf("records %+v", rec)
	}
	pid, _ := os.ReadFile(pidFile)
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(strings.TrimSpace(string(pid))) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %s outlived the interruption", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileHasData(name string) bool {
	b, err := os.ReadFile(name)
	return err == nil && len(strings.TrimSpace(string(b))) > 0
}

// processAlive says whether /proc has a live (not zombie) process pid.
func processAlive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

// coldSetWorkload is the fake query set whose cold calls note how many
// tries had run before each.
type coldSetWorkload struct{ setWorkload }

func (coldSetWorkload) Kind() string { return "fake-coldset" }
func (w coldSetWorkload) New(p params.Values) (workload.Instance, error) {
	in, err := w.setWorkload.New(p)
	if err != nil {
		return nil, err
	}
	return coldSetInstance{in.(setInstance)}, nil
}

type coldSetInstance struct{ setInstance }

// triesBeforeCold are the query calls made before each cold call.
var triesBeforeCold []int64

func (i coldSetInstance) UseCold(cold workload.Cold, most time.Duration) bool {
	return i.Set.UseCold(func(ctx context.Context, before string) (driver.Conn, error) {
		triesBeforeCold = append(triesBeforeCold, queryCalls.Load())
		return cold(ctx, before)
	}, most)
}

func init() { workload.Register(workload.Plugin{Workload: coldSetWorkload{}}) }

var _ workload.ColdTrier = (*queryset.Set)(nil)

// A query set on a target with restart runs it before each query's first
// try, waits for the server, and records its cold tries as true cold ones;
// without restart or drop_caches, nothing runs and the run says so.
func TestRestartBeforeEachQuerysFirstTry(t *testing.T) {
	file := filepath.Join(t.TempDir(), "restarts")
	queryCalls.Store(0)
	triesBeforeCold = nil
	runs, err := runHooked(t, context.Background(), "fake-coldset", "fakepool://x", 1, func(st *study.Study) {
		st.Targets[0].Restart = marker(file, "restart")
	})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	run := runs[0]
	if !slices.Equal(run.Summary.ColdBy, []string{"restart"}) || len(run.Summary.Queries) != setQueries {
		t.Errorf("cold by %v, %d queries", run.Summary.ColdBy, len(run.Summary.Queries))
	}
	var before []string
	for _, h := range run.Hooks {
		if h.Hook != result.HookRestart || !h.OK() {
			t.Errorf("record %+v", h)
		}
		before = append(before, h.Before)
	}
	if len(before) != setQueries || before[0] != "q1" || before[setQueries-1] != "q10" {
		t.Errorf("restarts before %v, want one before each of q1…q10", before)
	}
	for q, n := range triesBeforeCold {
		if n != int64(3*q) {
			t.Errorf("restart %d came after %d tries, want %d: not before its query's first try", q+1, n, 3*q)
		}
	}
	for _, q := range run.Summary.Queries {
		for i, try := range q.Tries {
			if try == nil {
				t.Errorf("%s try %d is null: %s", q.Name, i+1, q.Error)
			}
		}
	}

	runs, err = runHooked(t, context.Background(), "fake-coldset", "fakepool://x", 1, func(st *study.Study) {
		st.Targets[0].Restart = "echo cannot >&2; exit 2"
	})
	if err == nil || len(runs) != 1 || runs[0].Status != result.StatusFailed || !strings.Contains(runs[0].Error, "restart command") {
		t.Errorf("a failing restart: %d runs, %v", len(runs), err)
	}

	runs, _ = runHooked(t, context.Background(), "fake-coldset", "fakepool://x", 1, func(*study.Study) {})
	if len(runs) != 1 || len(runs[0].Summary.ColdBy) != 0 || len(runs[0].Hooks) != 0 {
		t.Errorf("without restart: %+v", runs)
	}
}

// Without root, drop_caches fails its cell saying which privilege it needs.
// As root, the real command would drop the shared machine's page cache: the
// test then runs one that fails as it does without root.
func TestDropCachesWithoutRootSaysWhy(t *testing.T) {
	if os.Geteuid() == 0 {
		old := dropCachesCommand
		dropCachesCommand = "echo 'sh: 1: cannot create /proc/sys/vm/drop_caches: Permission denied' >&2; exit 2"
		t.Cleanup(func() { dropCachesCommand = old })
	}
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://x", 1, func(st *study.Study) { st.Targets[0].DropCaches = true })
	if err == nil || len(runs) != 1 || runs[0].Status != result.StatusFailed {
		t.Fatalf("%d runs, %v: want the cell failed", len(runs), err)
	}
	if e := runs[0].Error; !strings.Contains(e, "drop_caches command") || !strings.Contains(e, "needs root (CAP_SYS_ADMIN)") {
		t.Errorf("error %q does not name drop_caches and the privilege", e)
	}
}

// A server that does not answer after its restart fails the cell within
// hook_timeout, naming the target.
func TestRestartedServerThatDoesNotAnswerFailsTheCell(t *testing.T) {
	fakeDown.Store(true)
	defer fakeDown.Store(false)
	runs, err := runHooked(t, context.Background(), "fake-test", "fake://x", 1, func(st *study.Study) {
		st.Targets[0].Restart = "true"
		st.Hooks.Timeout = 300 * time.Millisecond
	})
	if err == nil || len(runs) != 1 || runs[0].Status != result.StatusFailed {
		t.Fatalf("%d runs, %v: want the cell failed", len(runs), err)
	}
	if e := runs[0].Error; !strings.Contains(e, `target "f"`) || !strings.Contains(e, "did not answer within 300ms") || !strings.Contains(e, "connection refused") {
		t.Errorf("error %q does not name the target, the bound and the last error", e)
	}
}
