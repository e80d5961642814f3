package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// Two runs of one cell: 900 requests at 0.5 ms and 100 at 3 ms in one, 950
// at 4 ms and 50 at 60 ms in the other. Of the 2 000 merged requests, 900
// are within 1 ms, 1 950 within 5 ms and 50 ms, all 2 000 within 100 ms.
func TestLatencySharesOfMergedRuns(t *testing.T) {
	a, b := okRun(1, "x", 1, 10), okRun(2, "x", 1, 10)
	a.Ops = []result.Op{{Name: "get", Count: 1000, Histogram: encode(t, map[int64]int64{500: 900, 3000: 100})}}
	b.Ops = []result.Op{{Name: "get", Count: 1000, Histogram: encode(t, map[int64]int64{4000: 950, 60000: 50})}}
	groups, err := GroupRuns([]*result.Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	th := []time.Duration{time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}
	got := LatencyShares(groups[0].Merged, th)
	want := []float64{900.0 / 2000, 1950.0 / 2000, 1950.0 / 2000, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("share ≤ %v = %v, want %v", th[i], got[i], want[i])
		}
	}
	// A threshold exactly at a recorded value counts it.
	if got := LatencyShares(groups[0].Merged, []time.Duration{500 * time.Microsecond}); got[0] != 900.0/2000 {
		t.Errorf("share ≤ 500µs = %v, want 0.45", got[0])
	}
	if got := LatencyShares(hist.New(), th); !math.IsNaN(got[0]) {
		t.Errorf("an empty histogram has no share, got %v", got[0])
	}
}

func TestShareThresholdsAreChecked(t *testing.T) {
	for _, bad := range [][]string{
		{},
		{"0ms"},
		{"-1ms"},
		{"5ms", "1ms"},
		{"1ms", "1ms"},
		{"1ns"},
		{"2h"},
		{"fast"},
		{"1ms", "2ms", "3ms", "4ms", "5ms", "6ms", "7ms", "8ms", "9ms", "10ms", "11ms", "12ms", "13ms"},
	} {
		if _, err := ParseShareThresholds(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	got, err := ParseShareThresholds([]string{"500us", "1ms", "1.5s"})
	if err != nil || len(got) != 3 || got[0] != 500*time.Microsecond || got[2] != 1500*time.Millisecond {
		t.Errorf("got %v, %v", got, err)
	}
}

// pgbench's table: latency average and stddev over every transaction of the
// cell, pooled from each run's exact mean and stddev, and the initial
// connection time; the per-op table's p50, p95 and mean come from the op's
// merged histograms and exact sums.
func TestPooledLatencyStddevConnectTimeAndOpQuantiles(t *testing.T) {
	a, b := okRun(1, "x", 1, 10), okRun(2, "x", 1, 10)
	// Run a: 1 000 at mean 1 ms, stddev 0.1 ms; run b: 3 000 at mean 2 ms, stddev 0.2 ms.
	a.Summary.Transactions, a.Summary.LatencyMean, a.Summary.LatencyStddev, a.Summary.ConnectTimeMean = 1000, 1000, 100, 2
	b.Summary.Transactions, b.Summary.LatencyMean, b.Summary.LatencyStddev, b.Summary.ConnectTimeMean = 3000, 2000, 200, 4
	a.Ops = []result.Op{{Name: "read", Count: 600, Histogram: encode(t, map[int64]int64{1000: 600})},
		{Name: "update", Count: 400, Histogram: encode(t, map[int64]int64{1000: 380, 1500: 20})}}
	b.Ops = []result.Op{{Name: "read", Count: 1800, Histogram: encode(t, map[int64]int64{2000: 1800})},
		{Name: "update", Count: 1200, Histogram: encode(t, map[int64]int64{2000: 1200})}}
	groups, err := GroupRuns([]*result.Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	g := groups[0]
	mean := (1000*1000.0 + 3000*2000.0) / 4000
	variance := (1000*(100*100+1000*1000.0)+3000*(200*200+2000*2000.0))/4000 - mean*mean
	if math.Abs(g.MeanLatency-mean) > 1e-9 || math.Abs(g.LatencyStddev-math.Sqrt(variance)) > 1e-6 {
		t.Errorf("mean %v stddev %v, want %v %v", g.MeanLatency, g.LatencyStddev, mean, math.Sqrt(variance))
	}
	if !g.HasConnectTime || g.ConnectTime != 3 {
		t.Errorf("connect time %v %v, want 3 ms", g.ConnectTime, g.HasConnectTime)
	}
	up := g.Ops[1]
	// update: 380 at 1 ms, 20 at 1.5 ms, 1 200 at 2 ms: p50 and p95 are 2 ms,
	// the mean (380 + 30 + 2 400) / 1 600 ms.
	if up.Name != "update" || up.P50 != 2000 || up.P95 != 2000 || math.Abs(up.Mean-(380*1000+20*1500+1200*2000)/1600.0) > 1 {
		t.Errorf("update: %+v", up)
	}
	read := g.Ops[0]
	// read: 600 at 1 ms, 1 800 at 2 ms: p50 2 ms, p95 2 ms; 25 % at 1 ms.
	if read.P50 != 2000 || read.P95 != 2000 || read.P99 != 2000 {
		t.Errorf("read: %+v", read)
	}
}

// An op type's average is exact where the run stored its intervals' latency
// sums, not the histogram's bucketed mean.
func TestOpMeanFromIntervalSums(t *testing.T) {
	r := okRun(1, "x", 1, 10)
	r.Ops = []result.Op{{Name: "get", Count: 3, Histogram: encode(t, map[int64]int64{1000: 3})}}
	r.Series = []result.SeriesPoint{
		{Second: 1, Hists: []result.IntervalOp{{Name: "get", Count: 2, SumUs: 2001}}},
		{Second: 2, Hists: []result.IntervalOp{{Name: "get", Count: 1, SumUs: 1002}}},
	}
	groups, err := GroupRuns([]*result.Run{r})
	if err != nil {
		t.Fatal(err)
	}
	if got := groups[0].Ops[0].Mean; got != 1001 {
		t.Errorf("mean %v µs, want (2001 + 1002) / 3 = 1001", got)
	}
}
