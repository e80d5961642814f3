package analysis

import (
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
)

// Cumulative latency shares are the table redis-benchmark prints after its
// percentiles and articles copy: the share of requests answered within 1 ms,
// 5 ms, 50 ms, ... and the slowest one, read from the cells' merged
// HdrHistograms.

// DefaultShareThresholds are the thresholds a report uses when neither the
// study (`latency_shares`) nor the report's flag sets them.
var DefaultShareThresholds = []time.Duration{time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond}

// maxShareThresholds bounds how many thresholds a table has: one column each.
const maxShareThresholds = 12

// checkShareThresholds reports why thresholds cannot be a shares table's
// columns: each must be a positive whole number of microseconds (the
// histograms' unit) within the histograms' range, at most
// MaxShareThresholds of them, in increasing order.
func checkShareThresholds(ds []time.Duration) error {
	if len(ds) == 0 {
		return fmt.Errorf("no threshold: give at least one, such as [\"1ms\", \"5ms\", \"50ms\"]")
	}
	if len(ds) > maxShareThresholds {
		return fmt.Errorf("%d thresholds: at most %d (one column each)", len(ds), maxShareThresholds)
	}
	for i, d := range ds {
		switch {
		case d <= 0:
			return fmt.Errorf("threshold %v is not positive", d)
		case d%time.Microsecond != 0:
			return fmt.Errorf("threshold %v is finer than the histograms' microseconds", d)
		case d > time.Duration(hist.Highest)*time.Microsecond:
			return fmt.Errorf("threshold %v is beyond the histograms' range (%v)", d, time.Duration(hist.Highest)*time.Microsecond)
		case i > 0 && d <= ds[i-1]:
			return fmt.Errorf("thresholds must increase: %v after %v", d, ds[i-1])
		}
	}
	return nil
}

// ParseShareThresholds reads thresholds written as Go durations ("1ms",
// "500us", "1.5s") and checks them (CheckShareThresholds).
func ParseShareThresholds(ss []string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, len(ss))
	for _, s := range ss {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration (write it as 1ms, 500us or 1.5s)", s)
		}
		out = append(out, d)
	}
	if err := checkShareThresholds(out); err != nil {
		return nil, err
	}
	return out, nil
}

// LatencyShares returns, per threshold, the share (0 to 1) of the
// histogram's values at or under it. A histogram holds a value as its
// bucket, 3 significant digits wide: a value counts under a threshold when
// its bucket starts at or under it, so a latency up to 0.1 % above a
// threshold may count as under it. NaN for an empty histogram.
func LatencyShares(h *hdr.Histogram, thresholds []time.Duration) []float64 {
	out := make([]float64, len(thresholds))
	total := h.TotalCount()
	if total == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	bars := h.Distribution()
	for i, t := range thresholds {
		us := int64(t / time.Microsecond)
		var n int64
		for _, b := range bars {
			if b.From > us {
				break
			}
			n += b.Count
		}
		out[i] = float64(n) / float64(total)
	}
	return out
}
