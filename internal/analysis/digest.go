package analysis

import (
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/stats"
)

// DigestSeries fills in d what analysis reads of r's series (its op latency
// sums, the per-second throughput checks, the client CPU, a level shift's
// levels), so that r's series can be dropped (result.Run.DropSeries) and
// every check and table still reads the same numbers.
func DigestSeries(r *result.Run, d *result.SeriesDigest) {
	d.OpLatency = map[string]result.LatencySum{}
	var cpu []float64
	for _, p := range r.Series {
		cpu = append(cpu, p.CPU)
		for _, io := range p.Hists {
			if io.SumUs > 0 {
				s := d.OpLatency[io.Name]
				s.SumUs += io.SumUs
				s.Count += io.Count
				d.OpLatency[io.Name] = s
			}
		}
	}
	d.CPUMedian, d.CPUPoints = stats.Median(cpu), len(cpu)
	d.Rates = rateFindings(r)
	if s := d.Rates.Shift; s != nil {
		pts := r.RatePoints()
		d.Levels = &[2]result.LevelTally{levelTally(pts[:s.BeforeSeconds]), levelTally(pts[s.BeforeSeconds:])}
	}
}

// rateFindings are the checks of r's per-second throughput: a level shift;
// else a warm-up too short and a drift after it. A query set's per-second
// rate follows its queries, each tried in turn, not the server's state: its
// series says nothing of them (its cold and hot tries do).
func rateFindings(r *result.Run) result.RateFindings {
	if r.Digest != nil {
		return r.Digest.Rates
	}
	var f result.RateFindings
	if len(r.Summary.Queries) > 0 {
		return f
	}
	pts := r.RatePoints()
	rates := make([]float64, len(pts))
	for i, p := range pts {
		rates[i] = p.Rate
	}
	// A sustained level shift is one drift with two levels, not a warm-up
	// too short (the first seconds differ from the rest because the whole
	// first level does): neither of the other two is raised for it.
	if k, ok := levelShift(rates); ok {
		before, _ := meanSD(rates[:k])
		after, _ := meanSD(rates[k:])
		f.Shift = &result.LevelShift{Before: before, After: after, Second: pts[k-1].Second, BeforeSeconds: k, AfterSeconds: len(rates) - k}
		return f
	}
	skip := 0
	if w, first, rest, ok := warmupShift(rates); ok {
		skip = w
		f.Warmup = &result.WarmupShift{Seconds: w, First: first, Rest: rest}
	}
	if first, last, se, ok := drift(rates[skip:]); ok {
		f.Drift = &result.Drift{First: first, Last: last, SE: se}
	}
	return f
}

// clientCPU is the median of r's per-second client CPU and the points it
// is over.
func clientCPU(r *result.Run) (median float64, points int) {
	if r.Digest != nil {
		return r.Digest.CPUMedian, r.Digest.CPUPoints
	}
	cpu := make([]float64, 0, len(r.Series))
	for _, p := range r.Series {
		cpu = append(cpu, p.CPU)
	}
	return stats.Median(cpu), len(cpu)
}

// levelTally is what the seconds of one level measured.
func levelTally(points []result.SeriesPoint) result.LevelTally {
	t := result.LevelTally{Histograms: true}
	merged := hist.New()
	for _, p := range points {
		t.Seconds++
		t.Errors += p.Errors
		if p.Ops > 0 && p.Hists == nil {
			t.Histograms = false
		}
		for _, iv := range p.Hists {
			if iv.Count == 0 {
				continue
			}
			t.Count += iv.Count
			if iv.SumUs > 0 {
				t.SumUs += iv.SumUs
				t.Summed += iv.Count
			}
			h, err := hist.Decode([]byte(iv.Histogram))
			if err != nil {
				t.Histograms = false
				continue
			}
			merged.Merge(h)
		}
	}
	if merged.TotalCount() > 0 {
		b, err := hist.Encode(merged)
		if err != nil {
			t.Histograms = false
		}
		t.Histogram = b
	}
	return t
}
