package hist

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// Two load generators measure the same second: one sees a fast server, the
// other a slow one. The merged point's percentiles must be those of all their
// requests together — what one histogram of every request gives — and not the
// mean of the two generators' percentiles.
func TestMergeSeriesIsExact(t *testing.T) {
	names := []string{"read", "update"}
	rng := rand.New(rand.NewPCG(1, 2))
	all := New()
	var series [2][]result.SeriesPoint
	var p99s [2]float64
	for g := range 2 {
		rec := NewRecorder(len(names))
		col := NewCollector(len(names), []*Recorder{rec})
		for sec := 1; sec <= 3; sec++ {
			n := 2000 + 1000*g
			for i := 0; i < n; i++ {
				us := 100 + rng.IntN(400) // fast generator: 100–500 µs
				if g == 1 {
					us = 1000 + rng.IntN(9000) // slow one: 1–10 ms
				}
				op := i % 2
				rec.recordRequest(op, time.Duration(us)*time.Microsecond, 1, 10)
				if sec == 2 {
					_ = all.RecordValue(int64(us))
				}
			}
			rec.RecordError(1, result.ErrThrottled)
			stats := col.Tick()
			hs, err := Interval(names, stats)
			if err != nil {
				t.Fatal(err)
			}
			c := Combine(stats)
			pt := result.SeriesPoint{Second: sec, Ops: c.Count, Errors: c.ErrorCount(), Rate: float64(c.Count), Hists: hs,
				P99: float64(c.Hist.ValueAtQuantile(99))}
			if sec == 2 {
				p99s[g] = pt.P99
			}
			series[g] = append(series[g], pt)
		}
	}
	merged, err := MergeSeries(series[0], series[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 3 {
		t.Fatalf("%d merged points, want 3", len(merged))
	}
	pt := merged[1]
	if pt.Second != 2 || pt.Ops != 5000 || pt.Errors != 2 || pt.Rate != 5000 {
		t.Fatalf("second %d: ops %d errors %d rate %.0f, want 2: 5000, 2, 5000", pt.Second, pt.Ops, pt.Errors, pt.Rate)
	}
	for _, q := range []struct {
		name string
		got  float64
		want int64
	}{{"p50", pt.P50, all.ValueAtQuantile(50)}, {"p95", pt.P95, all.ValueAtQuantile(95)},
		{"p99", pt.P99, all.ValueAtQuantile(99)}, {"max", pt.Max, all.Max()}} {
		if q.got != float64(q.want) {
			t.Fatalf("merged %s %.0f µs, one histogram of every request says %d", q.name, q.got, q.want)
		}
	}
	if avg := (p99s[0] + p99s[1]) / 2; avg == pt.P99 {
		t.Fatalf("the average of the generators' p99 (%.0f) equals the merged p99: the test cannot tell them apart", avg)
	}
	var items, upd int64
	for _, iv := range pt.Hists {
		items += iv.Items
		if iv.Name == "update" {
			upd = iv.Errors[result.ErrThrottled]
		}
	}
	if items != 5000 || upd != 2 {
		t.Fatalf("merged items %d, throttled updates %d: want 5000 and 2", items, upd)
	}
}

func TestMergeSeriesRefusesPointsWithoutHistograms(t *testing.T) {
	old := []result.SeriesPoint{{Second: 1, Ops: 10, Rate: 10, P99: 500}} // as stored before schema 3
	_, err := MergeSeries(old, old)
	if err == nil || !strings.Contains(err.Error(), "schema 3") {
		t.Fatalf("merging quantile-only points: err %v, want a refusal naming schema 3", err)
	}
}
