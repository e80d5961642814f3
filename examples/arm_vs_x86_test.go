package examples_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	_ "github.com/fairbench/fairbench/internal/workload/all"
)

// The ARM-versus-x86 example runs end to end on the test servers, shortened
// (1 s per cell, no warm-up, small tables, one mode, one repetition, 8 and 4
// cores), and its report is the published one's: each engine's ARM server
// against its own x86 server (marked baseline = true) at 1 client and at
// every share of the threads, whatever count the share came to on each, with
// the declared prices' cost per hour and operations per dollar.
func TestARMvsX86OLTPExampleRuns(t *testing.T) {
	st := parseExample(t, "arm-vs-x86-oltp.toml")
	if len(st.Targets) != 4 || len(st.Workloads) != 1 {
		t.Fatalf("want PostgreSQL and MySQL on x86 and ARM and one workload, got %d targets and %d workloads", len(st.Targets), len(st.Workloads))
	}
	baselines := strings.Join(st.Baselines(), ",")
	if baselines != "pg-x86,my-x86" {
		t.Errorf("the study's baselines are %q, want each engine's x86 server: pg-x86,my-x86", baselines)
	}
	pg, my := testenv.FreshPostgres(t), testenv.FreshMySQL(t)
	urls := map[string]string{"pg-x86": pg, "pg-arm": pg, "my-x86": my, "my-arm": my}
	for _, tg := range st.Targets {
		u, ok := urls[tg.Name]
		if !ok {
			t.Fatalf("unexpected target %q", tg.Name)
		}
		if tg.PricePerHour <= 0 || tg.Cores <= 0 {
			t.Errorf("target %s declares no price or cores", tg.Name)
		}
		tg.URL = u
		tg.Cores = map[bool]int{true: 8, false: 4}[strings.HasSuffix(tg.Name, "x86")]
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	w := st.Workloads[0]
	w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
	w.Params["table_size"] = []any{int64(1000)}
	w.Params["tables"] = []any{int64(2)}
	w.Params["mode"] = []any{"read_only"}
	w.Clients = []study.ClientLevel{{N: 1}, {Percent: 50}, {Percent: 99}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	r := runner.New(st, runner.Options{Sink: s})
	ctx := context.Background()
	if err := r.Preflight(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx, cells); err != nil {
		t.Fatal(err)
	}
	for i, run := range s.Runs {
		if run.Status != result.StatusOK || run.Summary.Transactions == 0 {
			t.Fatalf("%s c=%d: %s, %d transactions: %s", run.Target, run.Clients, run.Status, run.Summary.Transactions, run.Error)
		}
		run.ID = int64(i + 1)
	}
	groups, err := analysis.GroupRuns(s.Runs)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := analysis.Compare(groups, baselines, analysis.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, cc := range cmp.Cells {
		got[cc.Other.Target+" vs "+cc.Base.Target+" at "+cc.Other.LevelID()] = true
	}
	for _, want := range []string{
		"pg-arm vs pg-x86 at 1", "pg-arm vs pg-x86 at 50%", "pg-arm vs pg-x86 at 99%",
		"my-arm vs my-x86 at 1", "my-arm vs my-x86 at 50%", "my-arm vs my-x86 at 99%",
	} {
		if !got[want] {
			t.Errorf("no comparison %s; compared: %v", want, got)
		}
	}
	if len(cmp.Cells) != 6 {
		t.Errorf("%d cells compared, want 6 (each ARM server against its own engine's x86 server at 3 levels): %v", len(cmp.Cells), got)
	}
	var md bytes.Buffer
	if err := report.CompareMarkdown(&md, cmp, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"50 % of threads", "99 % of threads", "| pg-x86 (baseline) |", "| my-x86 (baseline) |", "(n=1, 2 clients)", "(n=1, 4 clients)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, md.String())
		}
	}
	md.Reset()
	if err := report.Markdown(&md, groups, s.Runs, report.Options{Baseline: baselines, Checked: true, Warnings: analysis.Warnings(groups, baselines)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| target | $ per hour |", "| pg-arm | 0.58 |", "| my-x86 | 0.768 |", "tx per $"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	var page bytes.Buffer
	if err := report.HTML(&page, groups, s.Runs, report.HTMLOptions{Options: report.Options{Baseline: baselines}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "$ per hour") {
		t.Error("the HTML report lacks the price table")
	}
	if strings.Contains(md.String(), "different engines") {
		t.Errorf("with a baseline per engine, no target is compared with the other engine:\n%s", md.String())
	}
}
