package examples_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/examples"
	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// The study of issue 29 runs as shipped (about a minute and a half) and its
// text report says, in its first 15 lines, that DELETE/FULL is about 90 %
// slower than WAL/NORMAL on read_write and within a few percent on
// read_only, each with its verdict and the test named.
func TestSQLiteJournalExampleFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 24 timed cells (about 1.5 minutes)")
	}
	data, err := examples.Files.ReadFile("sqlite-journal-oltp.toml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := study.Parse("sqlite-journal-oltp.toml", data, workload.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tg := range st.Targets {
		// The shipped URLs are relative to the working directory: keep their
		// settings, put the files in the test's directory.
		file, query, _ := strings.Cut(strings.TrimPrefix(tg.URL, "sqlite:"), "?")
		tg.URL = "sqlite:" + filepath.Join(dir, filepath.Base(file)) + "?" + query
	}
	cells, err := st.Plan(workload.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 24 {
		t.Fatalf("%d cells, want 2 targets × 2 modes × 2 clients × 3 repetitions = 24", len(cells))
	}
	sink := &runner.MemorySink{}
	r := runner.New(st, runner.Options{Sink: sink})
	ctx := context.Background()
	if err := r.Preflight(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx, cells); err != nil {
		t.Fatal(err)
	}
	for i, run := range sink.Runs {
		run.ID = int64(i + 1)
		if run.Status != result.StatusOK {
			t.Fatalf("run %d (%s): %s: %s", run.ID, run.Target, run.Status, run.Error)
		}
	}
	groups, err := analysis.GroupRuns(sink.Runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	opt := report.Options{Title: st.Name, Warnings: analysis.Warnings(groups, ""), Checked: true}
	if err := report.Terminal(&b, groups, opt); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	head := strings.Join(lines[:min(15, len(lines))], "\n")
	t.Logf("report:\n%s", b.String())

	// "oltp read_write: delete-full is 89.6 % slower than wal-normal (...)"
	// and the verdict line below it.
	rw := regexp.MustCompile(`oltp read_write: delete-full is ([0-9.]+) % slower than wal-normal.*\n\s+verdicts in 2 cells: 2 slower \(Welch's t on log values, p`).FindStringSubmatch(head)
	if rw == nil {
		t.Fatalf("the first 15 lines do not say that delete-full is slower on read_write with a verdict and its test:\n%s", head)
	}
	if pct, _ := strconv.ParseFloat(rw[1], 64); pct < 75 || pct > 97 {
		t.Errorf("read_write: delete-full %.1f %% slower, want about 90 %%", pct)
	}
	// read_only: within a few percent, and no verdict of faster or slower.
	// On a busy machine the repetitions scatter (the repetitions warning
	// says so) and the finding says "not significantly different" instead.
	ro := regexp.MustCompile(`oltp read_only: delete-full is (within ([0-9.]+) % of|not significantly different from) wal-normal.*\n\s+verdicts in 2 cells: 2 no significant difference \((Welch's t on log values|Mann–Whitney U)`).FindStringSubmatch(head)
	if ro == nil {
		t.Fatalf("the first 15 lines do not say that read_only is within a few percent, with a verdict and its test:\n%s", head)
	}
	steady := true
	for _, w := range opt.Warnings {
		if w.Check == analysis.CheckRepetitions {
			steady = false
		}
	}
	if pct, _ := strconv.ParseFloat(ro[2], 64); steady && (ro[2] == "" || pct > 10) {
		t.Errorf("read_only with steady repetitions: %q, want within a few percent", ro[0])
	} else if !steady {
		t.Logf("the repetitions scatter (a busy machine?): read_only reads %q", ro[1])
	}
}
