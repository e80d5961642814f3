package analysis

// Level shifts: a run whose per-second throughput holds one level and then
// another for the rest of the run. Burst credits (a cloud disk or instance
// that serves at a burst rate until its credits run out, then at its
// baseline) and throttling look like this; so does a cache that takes longer
// to warm than the warm-up lasted. The run's value blends the two levels in
// proportion to the seconds spent at each, so reports name both and the
// second at which it changed. A short transient at the start is not a shift
// (the warm-up check's business), nor is a gradual drift: the shift is the
// one change point of the series by least squares, and it counts only when
// each side lasts longer than the warm-up window, the two levels differ
// beyond DriftMinChange and DriftSigmas standard errors (the drift check's
// own thresholds), and the two flat levels explain at least
// LevelShiftMinExplained of the series' variance (a straight ramp, split
// anywhere, explains at most 75 %).

import (
	"fmt"
	"math"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// levelShiftMinExplained is the share of the per-second series' variance
// two flat levels must explain for a change to be a level shift.
const levelShiftMinExplained = 0.85

// LevelShift is a sustained change of a run's per-second throughput.
type LevelShift = result.LevelShift

// RunLevelShift finds the level shift of a run's per-second series, if it
// has one. A query set's series follows its queries, not the server's
// state: it has none.
func RunLevelShift(r *result.Run) (LevelShift, bool) {
	if s := rateFindings(r).Shift; s != nil {
		return *s, true
	}
	return LevelShift{}, false
}

// warmupWindow is how many seconds at the start the warm-up check looks at:
// 10 % of the series, 2 to 10.
func warmupWindow(n int) int { return min(max(n/10, 2), 10) }

// levelShift returns the number of seconds k at the first level when rates
// hold one level for rates[:k] and another for rates[k:] (see the file's
// comment for the rule). It needs 10 points, like the warm-up check.
func levelShift(rates []float64) (k int, ok bool) {
	n := len(rates)
	if n < 10 {
		return 0, false
	}
	minSeg := warmupWindow(n) + 1 // longer than a warm-up transient
	if n < 2*minSeg {
		return 0, false
	}
	// Prefix sums give every split's squared error in O(1).
	sum, sq := make([]float64, n+1), make([]float64, n+1)
	for i, x := range rates {
		sum[i+1], sq[i+1] = sum[i]+x, sq[i]+x*x
	}
	sse := func(a, b int) float64 { // of rates[a:b] around its mean
		s := sum[b] - sum[a]
		return math.Max(0, sq[b]-sq[a]-s*s/float64(b-a))
	}
	total := sse(0, n)
	best, bestSSE := 0, math.Inf(1)
	for j := minSeg; j <= n-minSeg; j++ {
		if e := sse(0, j) + sse(j, n); e < bestSSE {
			best, bestSSE = j, e
		}
	}
	if best == 0 || !(total > 0) {
		return 0, false
	}
	m1, s1 := meanSD(rates[:best])
	m2, s2 := meanSD(rates[best:])
	mAll := sum[n] / float64(n)
	if !(m1 > 0 && m2 > 0) {
		return 0, false // a level of nothing is an outage, the outage check's
	}
	d := math.Abs(m2 - m1)
	se := math.Sqrt(s1*s1/float64(best) + s2*s2/float64(n-best))
	explained := 1 - bestSSE/total
	return best, d > driftMinChange*mAll && d > driftSigmas*se && explained >= levelShiftMinExplained
}

// levelShiftWarning is the drift warning of a run with a level shift: both
// levels, the second it changed, and that the run's value blends them.
func levelShiftWarning(r *result.Run, label string, s LevelShift) Warning {
	why := "burst credits or throttling? Two states of the server, not a warm-up too short"
	if !s.Burst() {
		why = fmt.Sprintf("a cache or a server still warming after the warm-up? %d s more of warm-up would measure the second level alone", s.Second)
	}
	h := Headline(r)
	return Warning{Check: checkDrift, Runs: []int64{r.ID}, Message: fmt.Sprintf(
		"run %d (%s): level shift: %s (%+.1f %%, %d s and %d s); the run's %s %s %s blends both levels: %s",
		r.ID, label, s, s.Change(), s.BeforeSeconds, s.AfterSeconds, h.Headline.Name, numfmt.Rate(h.Value), h.Headline.Unit, why)}
}

// CellLevels are the two levels of a cell whose every completed run shifted
// level the same way (all burst then steady, or all slower then faster):
// what each level measured, so that a report can show each as a row of its
// own beside the cell's blended numbers.
type CellLevels struct {
	Burst bool // the first level is the higher one
	// UntilMin and UntilMax are the last second at the first level, the
	// earliest and the latest over the runs.
	UntilMin, UntilMax int
	First, Second      Level
	// InHeadlineUnit says whether the levels' rates measure what the cell's
	// headline does (every request per second); else they are ops/s beside
	// a headline of another measure.
	InHeadlineUnit bool
}

// Level is what a cell measured at one of its two levels.
type Level struct {
	// Rate is the median over the runs of each run's mean ops/s at this
	// level (the per-second series' rate, every op type).
	Rate float64
	// Seconds is how many seconds the runs spent at it, summed.
	Seconds int
	Errors  int64
	// HasLatency says whether every second at this level kept its interval
	// histograms (runs stored before schema 3 did not); then Mean, P50, P95,
	// P99 and Max are µs over every request of those seconds, merged.
	HasLatency               bool
	Mean, P50, P95, P99, Max float64
}

// Names are the levels' names: "burst" and "steady", or "first level" and
// "second level" when the first is the slower.
func (c CellLevels) Names() (first, second string) {
	if c.Burst {
		return "burst", "steady"
	}
	return "first level", "second level"
}

// Until writes the last second at the first level: "5", or "5–7" when the
// runs changed level at different seconds.
func (c CellLevels) Until() string {
	if c.UntilMin == c.UntilMax {
		return strconv.Itoa(c.UntilMin)
	}
	return strconv.Itoa(c.UntilMin) + "–" + strconv.Itoa(c.UntilMax)
}

// CellLevelShift gives the levels of g when every completed run of it has a
// level shift, all in the same direction; false otherwise (a cell whose
// repetitions disagree keeps its one row, and the Level shifts table lists
// the runs that shifted).
func CellLevelShift(g *Group) (CellLevels, bool) {
	if g.N == 0 {
		return CellLevels{}, false
	}
	var c CellLevels
	var before, after []float64
	first, second := newLevelAcc(), newLevelAcc()
	for i, r := range g.Runs {
		s, ok := RunLevelShift(r)
		if !ok || (i > 0 && s.Burst() != c.Burst) {
			return CellLevels{}, false
		}
		if i == 0 {
			c.Burst, c.UntilMin, c.UntilMax = s.Burst(), s.Second, s.Second
		}
		c.UntilMin, c.UntilMax = min(c.UntilMin, s.Second), max(c.UntilMax, s.Second)
		before, after = append(before, s.Before), append(after, s.After)
		levels := levelTallies(r, s)
		first.add(levels[0])
		second.add(levels[1])
	}
	c.First, c.Second = first.level(hist.Median(before)), second.level(hist.Median(after))
	c.InHeadlineUnit = isThroughput(g.Headline)
	return c, true
}

// levelTallies are what each level of r, which shifted level by s,
// measured: from its digest once a report dropped its series.
func levelTallies(r *result.Run, s LevelShift) [2]result.LevelTally {
	if r.Digest != nil {
		if r.Digest.Levels == nil {
			return [2]result.LevelTally{} // not kept: the levels show throughput only
		}
		return *r.Digest.Levels
	}
	return *TallyLevels(s, r.RatePoints())
}

// levelAcc merges one level's tallies over a cell's runs.
type levelAcc struct {
	seconds    int
	errors     int64
	merged     *hdr.Histogram
	sumUs      float64
	summed     int64 // requests whose latency sumUs holds
	count      int64
	histograms bool // every second with requests kept its histograms
}

func newLevelAcc() *levelAcc { return &levelAcc{merged: hist.New(), histograms: true} }

func (a *levelAcc) add(t result.LevelTally) {
	a.seconds += t.Seconds
	a.errors += t.Errors
	a.count += t.Count
	a.sumUs += t.SumUs
	a.summed += t.Summed
	a.histograms = a.histograms && t.Histograms
	if len(t.Histogram) == 0 {
		return
	}
	h, err := hist.Decode(t.Histogram)
	if err != nil {
		a.histograms = false
		return
	}
	a.merged.Merge(h)
}

func (a *levelAcc) level(rate float64) Level {
	l := Level{Rate: rate, Seconds: a.seconds, Errors: a.errors}
	if !a.histograms || a.merged.TotalCount() == 0 {
		return l
	}
	l.HasLatency = true
	l.Mean = a.merged.Mean()
	if a.summed == a.count {
		l.Mean = a.sumUs / float64(a.summed) // exact where every second kept its sum
	}
	l.P50 = float64(a.merged.ValueAtQuantile(50))
	l.P95 = float64(a.merged.ValueAtQuantile(95))
	l.P99 = float64(a.merged.ValueAtQuantile(99))
	l.Max = float64(a.merged.Max())
	return l
}
