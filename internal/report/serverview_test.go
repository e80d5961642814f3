package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// hostileWait is a wait state name with markup of every format in it: a
// driver names its waits, and the server may name them anything.
const hostileWait = "IO:<b>WAL|Sync</b>\x1b[31m"

// withViews gives the fixture's runs server views: vm's sessions wait on
// hostileWait in 40 % of the samples, k8s's in 5 %.
func withViews(t *testing.T) []*result.Run {
	runs := fixture(t)
	for _, r := range runs {
		waitN := int64(8)
		if r.Target == "k8s" {
			waitN = 1
		}
		r.ServerView = &result.ServerView{Samples: 10, Seconds: 9, Active: 20,
			Waits:    []result.ViewWait{{Name: "CPU", Samples: 20 - waitN}, {Name: hostileWait, Samples: waitN}},
			Counters: []result.ViewCounter{{Name: "wal_bytes", Unit: "bytes", Delta: 9000, PerSecond: 1000}},
			Gauges:   []result.ViewGauge{{Name: "hit ratio", Unit: "%", Mean: 99, Max: 100}},
			Buckets:  []result.ViewBucket{{From: 0, To: 5, Waits: map[string]int64{"CPU": 10}}, {From: 5, To: 10, Waits: map[string]int64{hostileWait: waitN, "CPU": 10 - waitN}}},
		}
		if r.Target == "k8s" {
			r.ServerView.Unavailable = []string{"wait events of other roles' sessions: GRANT pg_read_all_stats TO <bench>"}
		}
	}
	return runs
}

// Every format shows the server view per cell, the wait finding and the
// missing part once per target, with the names escaped for the format.
func TestServerViewInEveryFormat(t *testing.T) {
	runs := withViews(t)
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, page bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "md": md.String(), "html": page.String()} {
		// html/template escapes by context: a control character is no
		// markup there (internal/escape).
		if name != "html" && strings.Contains(out, "\x1b") || name != "text" && strings.Contains(out, "<b>WAL") {
			i := max(strings.Index(out, "\x1b"), strings.Index(out, "<b>WAL"))
			t.Errorf("%s: the wait name is not escaped: %q", name, out[max(i-80, 0):min(i+40, len(out))])
		}
		for _, want := range []string{"Server view", "wal_bytes", "bytes/s", "in 40 % of samples, k8s in 5 %"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q", name, want)
			}
		}
		if n := strings.Count(out, "pg_read_all_stats"); n != 1 {
			t.Errorf("%s: the missing part shows %d times, want once for its target", name, n)
		}
	}
	if rows := tableAfter(t, md.String(), "4 clients: what each server"); len(rows) < 5 || !strings.Contains(strings.Join(rows, "\n"), "| 40.0 | 5.0 |") && !strings.Contains(strings.Join(rows, "\n"), "| 5.0 | 40.0 |") {
		t.Errorf("the 4-client table does not hold the shares: %q", rows)
	}
	if !strings.Contains(page.String(), `data-chart="s0-waits0"`) {
		t.Error("html: no chart of the wait states over time")
	}
}

// Runs without a view leave the report as it was: no table, no finding.
func TestNoServerViewNoSection(t *testing.T) {
	if md := render(t, fixture(t)); strings.Contains(md, "Server view") {
		t.Error("a report without server views has a Server view section")
	}
}
