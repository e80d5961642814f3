package examples_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The ARM-versus-x86 example runs end to end on the test servers, shortened
// (1 s per cell, no warm-up, small data, one mode, one repetition, 8 and 4
// cores), with the real pgbench, sysbench and mysqlslap (a tool not
// installed is left out, named in a skipped subtest). Its report is the
// published one's: each engine's ARM server against its own x86 server
// (marked baseline = true) at 1 client and at every share of the threads,
// whatever count the share came to on each; pgbench's table; mysqlslap's
// seconds per concurrency; the prices. The tables are compared with
// testdata/golden/arm-vs-x86-oltp*.{txt,md}.
func TestARMvsX86OLTPExampleRuns(t *testing.T) {
	st := parseExample(t, "arm-vs-x86-oltp.toml")
	if len(st.Targets) != 4 || len(st.Workloads) != 3 {
		t.Fatalf("want PostgreSQL and MySQL on x86 and ARM and three workloads, got %d targets and %d workloads", len(st.Targets), len(st.Workloads))
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
		tg.ServerView = study.ServerViewOff // its rows vary from run to run (managed_platforms_test.go)
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	for _, w := range st.Workloads {
		w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
		w.Clients = []study.ClientLevel{{N: 1}, {Percent: 50}, {Percent: 99}}
		switch w.Tool {
		case "pgbench":
			w.Params["scale"] = []any{int64(1)}
		case "sysbench":
			w.Params["table_size"] = []any{int64(1000)}
			w.Params["tables"] = []any{int64(2)}
			w.Params["mode"] = []any{"read_only"}
		case "mysqlslap":
			w.Params["queries"] = []any{int64(200)}
			w.Params["iterations"] = []any{int64(2)}
			w.Params["schema"] = []any{databaseOf(my) + "_slap"}
		default:
			t.Fatalf("unexpected workload %s (tool %q)", w.Name, w.Tool)
		}
	}
	missing := dropMissingTools(t, st)
	path := runIntoStore(t, st, runner.Options{})
	text, md, runs := reports(t, path, "pg-x86,my-x86")
	checkGolden(t, "arm-vs-x86-oltp", missing, text, md)

	// fairbench report compares the servers at every share of the threads
	// they share, each engine against its own x86 server.
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := analysis.Compare(groups, baselines, analysis.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, cc := range cmp.Cells {
		got[cc.Other.Target+" vs "+cc.Base.Target+" "+cc.Other.Workload+" at "+cc.Other.LevelID()] = true
	}
	for _, w := range st.Workloads {
		pair := map[string]string{"pgbench": "pg-arm vs pg-x86 ", "sysbench": "my-arm vs my-x86 ", "mysqlslap": "my-arm vs my-x86 "}[w.Tool]
		for _, level := range []string{"1", "50%", "99%"} {
			if want := pair + w.Name + " at " + level; !got[want] {
				t.Errorf("no comparison %s; compared: %v", want, got)
			}
		}
	}
	if len(cmp.Cells) != 3*len(st.Workloads) {
		t.Errorf("%d cells compared, want 3 per workload (the ARM server against its engine's x86 server at 1, 50 %% and 99 %%): %v", len(cmp.Cells), got)
	}
	// The report's tables side by side at each level, named by the share.
	tps := captionedRows(t, md, "Throughput, tps")
	if strings.Join(tps[0], "|") != "target|1 client|50 % of threads|99 % of threads" || len(tps) != 3 {
		t.Errorf("pgbench's throughput is not side by side at each level: %v", tps)
	}
	for _, row := range tps[1:] {
		if len(row) != 4 || row[1] == "–" || row[2] == "–" || row[3] == "–" {
			t.Errorf("a server lacks a level: %v", row)
		}
	}
	if !strings.Contains(text, "2 (50 % of threads)") || !strings.Contains(text, "4 (50 % of threads)") {
		t.Errorf("the text report does not name the share each count came from:\n%s", text)
	}
	if !strings.Contains(strings.Join(missing, " "), "mysqlslap") {
		slap := tableRows(t, md, "| target | concurrency | average s | minimum s | maximum s |")
		if len(slap) != 6 {
			t.Errorf("mysqlslap's table has %d rows, want 2 servers × 3 concurrencies: %v", len(slap), slap)
		}
	}
	prices := tableRows(t, md, "| target | $ per hour |")
	if len(prices) != 4 {
		t.Errorf("the price table has %d rows, want one per server: %v", len(prices), prices)
	}
	for _, row := range prices {
		if row[1] != map[bool]string{true: "0.768", false: "0.58"}[strings.HasSuffix(row[0], "x86")] {
			t.Errorf("%s costs %s per hour, not the study's price", row[0], row[1])
		}
	}
}

// databaseOf is the database a test URL names.
func databaseOf(url string) string {
	db := url[strings.LastIndex(url, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	return db
}
