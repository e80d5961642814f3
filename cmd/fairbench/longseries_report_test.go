package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// longSeriesStore writes a study of runs with long per-second series whose
// every series-derived fact shows in a report: a level shift (its levels'
// latencies from the seconds' histograms), a drift, a short warm-up, dead
// seconds, client CPU, exact latency sums; flat runs besides. It is the
// fixture that pins what reports derive from series, so that a change in
// how they read them (run by run instead of all at once) shows as a diff.
func longSeriesStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	const secs = 300
	// shape gives second sec of a run its rate (requests/s) and latency (µs).
	type shape func(sec int) (rate, us int64)
	flat := func(rate int64) shape { return func(int) (int64, int64) { return rate, 1_000_000 / rate * 4 } }
	shapes := map[string]shape{
		"flat":   flat(2000),
		"faster": flat(2600),
		"shifted": func(sec int) (int64, int64) {
			return map[bool]int64{true: 6000, false: 1500}[sec <= 60], map[bool]int64{true: 500, false: 2500}[sec <= 60]
		},
		"drifts": func(sec int) (int64, int64) { return 2000 - int64(sec), 2000 },
		"warmup": func(sec int) (int64, int64) { return map[bool]int64{true: 800, false: 2000}[sec <= 20], 2000 },
		"dead":   func(sec int) (int64, int64) { return map[bool]int64{true: 0, false: 2000}[sec%97 == 0], 2000 },
	}
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for rep := 1; rep <= 2; rep++ {
		for i, target := range []string{"flat", "faster", "shifted", "drifts", "warmup", "dead"} {
			shape := shapes[target]
			if rep == 2 && target != "faster" && target != "shifted" {
				shape = flat(2000 + int64(10*i))
			}
			all := hist.New()
			var series []result.SeriesPoint
			var count int64
			var sum float64
			for sec := 1; sec <= secs; sec++ {
				rate, us := shape(sec)
				us += int64(sec % 7)
				count += rate
				sum += float64(rate * us)
				p := tpcbSecond(t, all, sec, rate, us)
				p.Mean, p.P50, p.P95, p.P99, p.Max = float64(us), float64(us), float64(us), float64(us), float64(us)
				p.CPU = 0.3 + 0.001*float64(sec%5)
				series = append(series, p)
			}
			enc, err := hist.Encode(all)
			if err != nil {
				t.Fatal(err)
			}
			start := at.Add(time.Duration(rep*100+i) * time.Hour)
			if _, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "long series", StudyHash: "hl", Target: target, TargetURL: "postgres://h/" + target,
				Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 4, Repetition: rep, Status: result.StatusOK,
				StartedAt: start, EndedAt: start.Add(secs * time.Second), Duration: secs * time.Second, ToolVersion: "0.9.0",
				Summary: result.Summary{Transactions: count, Throughput: float64(count) / secs, LatencyMean: sum / float64(count),
					P50: float64(all.ValueAtQuantile(50)), P99: float64(all.ValueAtQuantile(99)), Max: float64(all.Max()),
					ClientCPU: 0.3 * secs, MeasuredSeconds: secs},
				Ops: []result.Op{{Name: "tpcb", Count: all.TotalCount(), Histogram: enc}}, Series: series}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// Reports of runs with long series, in every format that reads them, are
// the golden files' byte for byte: the guard for reading series run by run.
func TestReportLongSeriesGolden(t *testing.T) {
	s := longSeriesStore(t)
	for _, format := range []string{"text", "md", "html", "json", "csv"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			if err := writeReport(s, store.Filter{}, format, out); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			// The results file's path is a temporary directory's.
			got = bytes.ReplaceAll(got, []byte(s.Path()), []byte("RESULTS"))
			golden := filepath.Join("testdata", "longseries."+format)
			if *updateGolden {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/fairbench/ -run TestReportLongSeriesGolden -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the %s report differs from %s:\n%s", format, golden, firstDiff(string(want), string(got)))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, a, b)
		}
	}
	return "(same lines)"
}

// steadyTpcbSeries is a tpcb series of seconds 1 to n at 1000 requests of
// 800 µs each, with the whole run's histogram, merged and encoded.
func steadyTpcbSeries(t *testing.T, n int) ([]result.SeriesPoint, *hdr.Histogram, []byte) {
	t.Helper()
	all := hist.New()
	var series []result.SeriesPoint
	for sec := 1; sec <= n; sec++ {
		series = append(series, tpcbSecond(t, all, sec, 1000, 800))
	}
	enc, err := hist.Encode(all)
	if err != nil {
		t.Fatal(err)
	}
	return series, all, enc
}

// tpcbSecond is one second of a tpcb series: rate requests of us µs each,
// in the second's interval histogram, which is merged into all.
func tpcbSecond(t *testing.T, all *hdr.Histogram, sec int, rate, us int64) result.SeriesPoint {
	t.Helper()
	h := hist.New()
	if rate > 0 {
		if err := h.RecordValues(us, rate); err != nil {
			t.Fatal(err)
		}
	}
	all.Merge(h)
	enc, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return result.SeriesPoint{Second: sec, Ops: rate, Rate: float64(rate),
		Hists: []result.IntervalOp{{Name: "tpcb", Count: rate, SumUs: float64(rate * us), Histogram: string(enc)}}}
}
