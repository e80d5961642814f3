package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// Reports read series without their interval histograms (a flat run's stay
// unread); a run whose throughput shifts level is read again in full, so that the report still
// gives each level its latencies from the seconds' histograms (not
// "throughput only", as for a series stored without them).
func TestReportGivesLevelsTheirLatenciesFromStoredSeries(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 30 s: 7 500 requests/s of 500 µs until s 5, then 1 000/s of 2 000 µs.
	var series []result.SeriesPoint
	all := hist.New()
	for sec := 1; sec <= 30; sec++ {
		rate, us := int64(1000), int64(2000)
		if sec <= 5 {
			rate, us = 7500, 500
		}
		series = append(series, tpcbSecond(t, all, sec, rate, us))
	}
	enc, err := hist.Encode(all)
	if err != nil {
		t.Fatal(err)
	}
	for rep := 1; rep <= 2; rep++ {
		if _, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "bursts", StudyHash: "hb", Target: "vm", TargetURL: "postgres://h/db",
			Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 1, Repetition: rep, Status: result.StatusOK,
			Summary: result.Summary{Throughput: float64(all.TotalCount()) / 30, Transactions: all.TotalCount(), MeasuredSeconds: 30},
			Ops:     []result.Op{{Name: "tpcb", Count: all.TotalCount(), Histogram: enc}}, Series: series}); err != nil {
			t.Fatal(err)
		}
	}
	// A flat run in a cell of its own: its intervals stay unread.
	flat := make([]result.SeriesPoint, len(series))
	for i, p := range series {
		p.Ops, p.Rate = 1000, 1000
		flat[i] = p
	}
	if _, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "bursts", StudyHash: "hb", Target: "vm", TargetURL: "postgres://h/db",
		Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 2, Repetition: 1, Status: result.StatusOK,
		Summary: result.Summary{Throughput: 1000, Transactions: 30000, MeasuredSeconds: 30},
		Ops:     []result.Op{{Name: "tpcb", Count: all.TotalCount(), Histogram: enc}}, Series: flat}); err != nil {
		t.Fatal(err)
	}
	runs, err := readForReport(s, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		read := r.Digest.Levels != nil && r.Digest.Levels[0].Histograms
		if shifts := r.Clients == 1; read != shifts {
			t.Errorf("run %d (level shift: %v): intervals read with their histograms: %v", r.ID, shifts, read)
		}
	}

	out := filepath.Join(dir, "report.txt")
	if err := writeReport(s, store.Filter{}, "text", out); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string]string{"vm · burst (until s 5)": "0.500", "vm · steady": "2.000"} {
		var row string
		for _, l := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(l, prefix) {
				row = l
			}
		}
		if row == "" {
			t.Fatalf("the report has no row %q:\n%s", prefix, text)
		}
		if strings.Contains(row, "throughput only") || !strings.Contains(row, want) {
			t.Errorf("row %q gives no latency of %s ms:\n%s", prefix, want, row)
		}
	}
}
