package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 36 item 4: a run that served a burst rate for 5 s and then a steady
// rate 87 % lower shows both levels as rows of their own, with the second
// it changed, and says that the run's headline blends them: in the
// terminal report, in Markdown and in HTML.
func TestReportsShowBothLevelsOfABurstRun(t *testing.T) {
	runs := fixture(t)
	r := runs[0] // vm, 1 client, rep 1
	r.Series = nil
	for i := 0; i < 30; i++ {
		rate := 1000.0
		if i < 5 {
			rate = 7500
		}
		r.Series = append(r.Series, result.SeriesPoint{Second: i + 1, Ops: int64(rate), Rate: rate})
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Level shifts", "burst, until s 5", "7,500.0 ops/s", "steady, from s 6", "1,000.0 ops/s", "whole run (blends both)"}
	var text, md, html bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s report does not show %q", name, w)
			}
		}
	}
	if !strings.Contains(html.String(), "(blends two levels: burst 7,500.0 ops/s until s 5, then steady 1,000.0 ops/s)") {
		t.Errorf("the HTML run's label does not say it blends two levels")
	}
	if rows := tableAfter(t, md.String(), "Level shifts"); len(rows) != 5 { // header, separator, 3 rows
		t.Errorf("level-shift table has %d lines, want 5: %q", len(rows), rows)
	}
}

// burstSeries is 30 seconds at burst ops/s until s 5, then at steady ops/s,
// each second's requests taking burstUs and then steadyUs; without
// histograms, as series stored before schema 3.
func burstSeries(t *testing.T, burst, steady float64, burstUs, steadyUs int64, histograms bool) []result.SeriesPoint {
	t.Helper()
	var s []result.SeriesPoint
	for i := 0; i < 30; i++ {
		rate, us := steady, steadyUs
		if i < 5 {
			rate, us = burst, burstUs
		}
		p := result.SeriesPoint{Second: i + 1, Ops: int64(rate), Rate: rate}
		if histograms {
			h := hist.New()
			h.RecordValues(us, int64(rate))
			b, err := hist.Encode(h)
			if err != nil {
				t.Fatal(err)
			}
			p.Hists = []result.IntervalOp{{Name: "tx", Count: int64(rate), SumUs: float64(us) * rate, Histogram: string(b)}}
		}
		s = append(s, p)
	}
	return s
}

// Issue 38 item 4: a cell whose every repetition served a burst and then a
// steady rate gets two rows of its own in the main per-cell tables, as the
// articles print "write, burst" and "write, sustained load": the burst
// until its second and the steady state, each with its throughput (the
// median of the repetitions' levels) and its latencies from the seconds'
// histograms, or "throughput only" where the series kept none. A flat cell,
// and a cell where only one repetition shifted, keep their one row.
func TestMainTablesGiveBurstAndSteadyRowsOfTheirOwn(t *testing.T) {
	runs := fixture(t)
	// vm at 1 client, both repetitions; k8s at 4 clients without histograms.
	runs[0].Series = burstSeries(t, 7500, 1000, 500, 2000, true)
	runs[6].Series = burstSeries(t, 7000, 1200, 500, 2000, true)
	runs[3].Series = burstSeries(t, 5000, 800, 0, 0, false)
	runs[9].Series = burstSeries(t, 5000, 800, 0, 0, false)
	runs[1].Series = burstSeries(t, 100, 100, 1000, 1000, true) // flat
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, html bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}

	// Terminal: the rows follow their cell's row, with every column.
	lines := strings.Split(text.String(), "\n")
	row := func(prefix string) []string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Fields(strings.TrimPrefix(l, prefix))
			}
		}
		t.Fatalf("terminal report has no row %q:\n%s", prefix, text.String())
		return nil
	}
	for prefix, want := range map[string][]string{
		"vm · burst (until s 5)":  {"tpcb", "-", "1", "2", "7,250.0", "0.500", "0.500", "0.500", "0.500", "0.500", "0"},
		"vm · steady":             {"tpcb", "-", "1", "2", "1,100.0", "2.000", "2.000", "2.000", "2.000", "2.000", "0"},
		"k8s · burst (until s 5)": {"tpcb", "-", "4", "2", "5,000.0", "throughput", "only", "–", "–", "–", "–", "0"},
		"k8s · steady":            {"tpcb", "-", "4", "2", "800.0", "throughput", "only", "–", "–", "–", "–", "0"},
	} {
		if got := row(prefix); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("terminal row %q: %q, want %q", prefix, got, want)
		}
	}
	bursts := 0
	for i, l := range lines {
		if strings.Contains(l, " · burst (until") {
			bursts++
			if f, c := strings.Fields(l), strings.Fields(lines[i-1]); f[0] != c[0] || f[8] != c[3] {
				t.Errorf("the burst row does not follow its cell's row: %q then %q", lines[i-1], l)
			}
		}
	}
	if bursts != 2 {
		t.Errorf("want burst rows for the two shifted cells only:\n%s", text.String())
	}

	// Markdown: targets as rows, client counts as columns; the level rows
	// under their target, values in the shifted cells' columns only.
	tp := tableAfter(t, md.String(), "Throughput")
	for _, want := range []string{
		"| vm · burst | 7,250.0 (until s 5) |  |  |",
		"| vm · steady | 1,100.0 |  |  |",
		"| k8s · burst |  | 5,000.0 (until s 5) |  |",
		"| k8s · steady |  | 800.0 |  |",
	} {
		if !strings.Contains(strings.Join(tp, "\n"), want) {
			t.Errorf("Markdown throughput table lacks %q:\n%s", want, strings.Join(tp, "\n"))
		}
	}
	lat := tableAfter(t, md.String(), "Latency, ms (average / p50 / p95 / p99)")
	for _, want := range []string{
		"| vm · burst | 0.500 / 0.500 / 0.500 / 0.500 |  |  |",
		"| vm · steady | 2.000 / 2.000 / 2.000 / 2.000 |  |  |",
		"| k8s · burst |  | throughput only |  |",
	} {
		if !strings.Contains(strings.Join(lat, "\n"), want) {
			t.Errorf("Markdown latency table lacks %q:\n%s", want, strings.Join(lat, "\n"))
		}
	}
	if !strings.Contains(md.String(), "rows “· burst” and “· steady”") {
		t.Errorf("Markdown does not explain the level rows")
	}
	// HTML: the numbers beside the charts.
	for _, want := range []string{"vm · burst", "7,250.0 (until s 5)", "vm · steady", "k8s · steady", "throughput only"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// Without any cell whose every repetition shifted level, no report has a
// level row.
func TestNoLevelRowsWithoutALevelShiftInEveryRepetition(t *testing.T) {
	runs := fixture(t)
	runs[0].Series = burstSeries(t, 7500, 1000, 500, 2000, true) // one repetition of two
	runs[6].Series = burstSeries(t, 1000, 1000, 500, 500, true)  // flat
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, html bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if strings.Contains(out, "· burst") || strings.Contains(out, "· steady") {
			t.Errorf("%s report has level rows", name)
		}
	}
}
