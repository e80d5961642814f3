package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"

	_ "github.com/fairbench/fairbench/internal/adapter" // registers fio's and mysqlslap's kinds
)

// mixedRuns: one study of fio, pgbench (tpcb) and mysqlslap runs on two
// targets each, as the VM-vs-Kubernetes and ARM-vs-x86 examples import them:
// fio's and pgbench's with latencies, mysqlslap's without any (it prints
// only its seconds per iteration).
func mixedRuns(t *testing.T, kinds ...string) ([]*analysis.Group, []*result.Run) {
	t.Helper()
	h := hist.New()
	h.RecordValues(1000, 100)
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*result.Run
	id := int64(0)
	for _, kind := range kinds {
		for i, target := range []string{"a", "b"} {
			id++
			r := &result.Run{ID: id, Source: kind, StudyName: "s", Target: target, Workload: kind, Kind: kind,
				Clients: 4, Repetition: 1, Status: result.StatusOK, Duration: 10 * time.Second,
				Summary: result.Summary{Transactions: 100, Throughput: float64(1000 * (i + 1))}}
			if kind != "mysqlslap" {
				r.Summary.LatencyMean, r.Summary.P99 = 1000, 1000
				r.Ops = []result.Op{{Name: "op", Count: 100, Histogram: b}}
			} else {
				r.Ops = []result.Op{{Name: "op", Count: 100}}
			}
			runs = append(runs, r)
		}
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	return groups, runs
}

// Issue 38: a report of fio and pgbench captioned its peaks "Peak tps per
// target" and labelled fio's throughput "tps"; each scenario's headline
// comes from its own kind (IOPS for fio). mysqlslap got a latency table whose
// every cell was "–": a table with no value is left out, and one line says
// the tool reports none.
func TestMixedReportNamesEachKindsHeadlineAndNoEmptyLatencyTable(t *testing.T) {
	groups, runs := mixedRuns(t, "fio", "tpcb", "mysqlslap")
	var text, md bytes.Buffer
	if err := Terminal(&text, groups, Options{Baseline: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{Baseline: "a"}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "Markdown": md.String()} {
		if strings.Contains(out, "Peak tps") {
			t.Errorf("%s: the peaks of fio and pgbench are captioned in tps:\n%s", name, out)
		}
		if !strings.Contains(out, "2,000.0 IOPS (4)") {
			t.Errorf("%s: fio's peak is not in IOPS:\n%s", name, out)
		}
	}
	if !strings.Contains(text.String(), "mysqlslap reports no latency per request: its cells' latency columns read –.") {
		t.Errorf("text: no line says mysqlslap reports no latency:\n%s", text.String())
	}
	// The Markdown section of mysqlslap: no latency table, one line instead;
	// fio's keeps its own.
	out := md.String()
	i := strings.Index(out, "## mysqlslap")
	if i < 0 {
		t.Fatalf("no mysqlslap section:\n%s", out)
	}
	sec := out[i:]
	if j := strings.Index(sec[1:], "\n## "); j >= 0 {
		sec = sec[:j+1]
	}
	if strings.Contains(sec, "Latency, ms") || !strings.Contains(sec, "mysqlslap reports no latency per request: no latency table.") {
		t.Errorf("mysqlslap's section:\n%s", sec)
	}
	if strings.Count(out, "Latency, ms (average / p50 / p95 / p99)") != 2 {
		t.Errorf("want the latency tables of fio and pgbench:\n%s", out)
	}

	// mysqlslap alone: the main text table has no latency columns.
	groups, _ = mixedRuns(t, "mysqlslap")
	text.Reset()
	if err := Terminal(&text, groups, Options{Baseline: "a"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "p99 ms") || !strings.Contains(text.String(), "mysqlslap reports no latency per request: no latency table.") {
		t.Errorf("text of mysqlslap alone:\n%s", text.String())
	}
}
