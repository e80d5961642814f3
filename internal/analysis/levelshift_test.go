package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// levels is n seconds: the first k at a, the rest at b, with ±0.5 %
// alternating noise so that no level is perfectly flat.
func levels(n, k int, a, b float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		v := b
		if i < k {
			v = a
		}
		xs[i] = v * (1 + 0.005*float64(1-2*(i%2)))
	}
	return xs
}

// Issue 36 item 4: a run that serves a burst rate for 5 s of 30 and then a
// steady rate 87 % lower got "warm-up too short (+574.7 %)" beside its
// drift warning. It is one level shift: the drift warning names both levels
// and the second, says the run's value blends them, and no warm-up warning
// is raised.
func TestBurstThenSteadyIsALevelShiftNotAWarmup(t *testing.T) {
	r := withSeries(okRun(1, "a", 1, 2083.3), levels(30, 5, 7500, 1000), 0.1)
	ws := Warnings(group(t, r), "")
	if w := checks(ws, checkWarmup); len(w) != 0 {
		t.Errorf("burst credits reported as a warm-up: %+v", w)
	}
	d := checks(ws, checkDrift)
	if len(d) != 1 {
		t.Fatalf("want one drift warning, got %+v", ws)
	}
	for _, want := range []string{"level shift", "burst 7,507.5 ops/s until s 5, then steady 999.8 ops/s", "-86.7 %",
		"blends both levels", "burst credits or throttling"} {
		if !strings.Contains(d[0].Message, want) {
			t.Errorf("drift warning %q does not say %q", d[0].Message, want)
		}
	}
	s, ok := RunLevelShift(r)
	if !ok || s.Second != 5 || s.BeforeSeconds != 5 || s.AfterSeconds != 25 || !s.Burst() {
		t.Errorf("level shift %+v, %v; want burst until s 5 (5 s, then 25 s)", s, ok)
	}
}

// A slower first level that lasts beyond the warm-up window (a cache still
// warming at s 12 of 30) is a level shift too, named without "burst".
func TestSlowStartBeyondTheWarmupIsALevelShift(t *testing.T) {
	r := withSeries(okRun(1, "a", 1, 800), levels(30, 12, 500, 1000), 0.1)
	s, ok := RunLevelShift(r)
	if !ok || s.Second != 12 || s.Burst() {
		t.Fatalf("level shift %+v, %v; want 500 until s 12, then 1000", s, ok)
	}
	if got, want := s.String(), "500.0 ops/s until s 12, then 1,000.0 ops/s"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	ws := Warnings(group(t, r), "")
	if len(checks(ws, checkWarmup)) != 0 || len(checks(ws, checkDrift)) != 1 {
		t.Errorf("want the level shift alone, got %+v", ws)
	}
}

// What is not a level shift: a steady series, a short warm-up transient
// (the warm-up check's), a straight decline (the drift check's: two flat
// levels explain at most 75 % of a ramp), a step under the 5 % floor, a
// fall to nothing (an outage), and a series too short to tell.
func TestNotALevelShift(t *testing.T) {
	cold := steady()
	cold[0], cold[1], cold[2] = 500, 500, 500
	falling := steady()
	for i := range falling {
		falling[i] -= float64(i) * 200 / 29
	}
	cases := map[string][]float64{
		"steady":        steady(),
		"3 s warm-up":   cold,
		"linear fall":   falling,
		"4 % step":      levels(30, 15, 1000, 960),
		"fall to zero":  levels(30, 20, 1000, 0),
		"9 s":           levels(9, 4, 7500, 1000),
		"burst in 3 s":  levels(30, 3, 7500, 1000),
		"last 3 s drop": levels(30, 27, 1000, 100),
	}
	for name, rates := range cases {
		if k, ok := levelShift(rates); ok {
			t.Errorf("%s: level shift after %d s", name, k)
		}
	}
	// The warm-up and drift checks keep their cases.
	if w := checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 950), cold, 0.1)), ""), checkWarmup); len(w) != 1 {
		t.Errorf("a 3 s warm-up transient is no longer a warm-up warning: %+v", w)
	}
	d := checks(Warnings(group(t, withSeries(okRun(1, "a", 1, 900), falling, 0.1)), ""), checkDrift)
	if len(d) != 1 || strings.Contains(d[0].Message, "level shift") {
		t.Errorf("a linear fall is not the drift it was: %+v", d)
	}
}

// withLatency gives each second of r's series one histogram of its requests
// at us µs while the rate is above split, else at slowUs.
func withLatency(t *testing.T, r *result.Run, split float64, us, slowUs int64) *result.Run {
	t.Helper()
	for i, p := range r.Series {
		v := slowUs
		if p.Rate > split {
			v = us
		}
		h := hist.New()
		h.RecordValues(v, p.Ops)
		b, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		r.Series[i].Hists = []result.IntervalOp{{Name: "tx", Count: p.Ops, SumUs: float64(v * p.Ops), Histogram: string(b)}}
	}
	return r
}

// A cell whose every repetition went from a burst to a steady rate has
// both levels: each rate the median of the repetitions', the seconds at
// each, and each level's latency from its own seconds' histograms. A cell
// whose repetitions disagree (one shifted, or one rose where another fell)
// has none.
func TestCellLevelShiftGivesEachLevelsRateAndLatency(t *testing.T) {
	a := withLatency(t, withSeries(okRun(1, "a", 1, 2000), levels(30, 5, 7500, 1000), 0.1), 3000, 400, 1600)
	b := withLatency(t, withSeries(okRun(2, "a", 1, 2000), levels(30, 7, 6500, 1200), 0.1), 3000, 400, 1600)
	a.Repetition, b.Repetition = 1, 2
	gs := group(t, a, b)
	c, ok := CellLevelShift(gs[0])
	if !ok || !c.Burst || c.Until() != "5–7" || !c.InHeadlineUnit {
		t.Fatalf("levels %+v, %v; want a burst until s 5–7 in the headline's unit", c, ok)
	}
	if math.Abs(c.First.Rate-7000) > 10 || math.Abs(c.Second.Rate-1100) > 2 || c.First.Seconds != 12 || c.Second.Seconds != 48 {
		t.Errorf("first %+v, second %+v; want ~7000 ops/s over 12 s, then ~1100 over 48 s", c.First, c.Second)
	}
	if !c.First.HasLatency || c.First.P99 != 400 || c.First.Mean != 400 || !c.Second.HasLatency || c.Second.P50 != 1600 || c.Second.Max != 1600 {
		t.Errorf("latencies: first %+v, second %+v; want 400 µs then 1600 µs", c.First, c.Second)
	}
	if first, second := c.Names(); first != "burst" || second != "steady" {
		t.Errorf("names %q, %q", first, second)
	}

	flat := withSeries(okRun(3, "a", 1, 2000), steady(), 0.1)
	flat.Repetition = 2
	if _, ok := CellLevelShift(group(t, a, flat)[0]); ok {
		t.Errorf("a cell where one repetition of two shifted has levels")
	}
	rising := withSeries(okRun(4, "a", 1, 800), levels(30, 12, 500, 1000), 0.1)
	rising.Repetition = 2
	if _, ok := CellLevelShift(group(t, a, rising)[0]); ok {
		t.Errorf("a cell whose repetitions shifted in opposite directions has levels")
	}
	if c, ok := CellLevelShift(group(t, withSeries(okRun(5, "a", 1, 800), levels(30, 12, 500, 1000), 0.1))[0]); !ok || c.Burst || c.First.HasLatency {
		t.Errorf("a rising cell without histograms: %+v, %v; want its levels, throughput only", c, ok)
	}
}

// Issue 38: the series' last point held what completed in the few ms
// between the last tick and the clients' stop, its rate over that window
// (3,894 ops/s after a steady 90): counted as a whole second, it defeated the
// 85 % rule and the throttled run had no level shift. Neither such a point
// (its ops over its rate: a window under half its neighbour's) nor a point
// after the measured phase (Summary.MeasuredSeconds) counts as a second.
func TestPartialLastSecondIsNotALevel(t *testing.T) {
	partial := func(r *result.Run) *result.Run {
		r.Series = append(r.Series, result.SeriesPoint{Second: len(r.Series) + 1, Ops: 39, Rate: 3894})
		return r
	}
	shifted := levels(12, 6, 400, 90)
	byWindow := partial(withSeries(okRun(1, "a", 1, 245), shifted, 0.1))
	afterPhase := partial(withSeries(okRun(2, "a", 1, 245), shifted, 0.1))
	afterPhase.Summary.MeasuredSeconds = 12
	afterPhase.Series[12].Ops, afterPhase.Series[12].Rate = 500, 500 // a whole window, yet not the measured phase's
	for name, r := range map[string]*result.Run{"a 10 ms last point": byWindow, "a point after the measured phase": afterPhase} {
		s, ok := RunLevelShift(r)
		if !ok || s.Second != 6 || s.AfterSeconds != 6 {
			t.Errorf("%s: level shift %+v, %v; want 400 ops/s until s 6, then 90 for 6 s", name, s, ok)
		}
		c, ok := CellLevelShift(group(t, r)[0])
		if !ok || c.Second.Seconds != 6 {
			t.Errorf("%s: cell levels %+v, %v; want the second level over 6 s", name, c, ok)
		}
	}
	// On a steady run, the partial point is no drift either.
	if d := checks(Warnings(group(t, partial(withSeries(okRun(3, "a", 1, 1000), steady(), 0.1))), ""), checkDrift); len(d) != 0 {
		t.Errorf("a partial last point raised drift: %+v", d)
	}
}
