package analysis

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// runLatency is one run's latency percentiles from its own histograms, all
// op types merged and per op type: what the tables that compare runs'
// percentiles read (the latency tests, the per-op comparisons, the HTML
// report's spread bars). GroupRuns decodes each run's histograms once, for
// these and for the group's merged histograms, where each table used to
// decode them again: at 1 000 runs that was 3.5 GB of decoding for one
// report, and a decoded histogram is 188 KB, too large to keep per run.
type runLatency struct {
	all percentiles
	ops map[string]percentiles
}

// percentiles are the p50, p95 and p99 of a histogram in µs; ok is false
// when there was no histogram or it was empty.
type percentiles struct {
	p50, p95, p99 float64
	ok            bool
}

func percentilesOf(h *hdr.Histogram) percentiles {
	if h.TotalCount() == 0 {
		return percentiles{}
	}
	return percentiles{
		p50: float64(h.ValueAtQuantile(50)),
		p95: float64(h.ValueAtQuantile(95)),
		p99: float64(h.ValueAtQuantile(99)),
		ok:  true,
	}
}

// at returns percentile q (0–100) when it is one kept; kept is false for
// the others.
func (p percentiles) at(q float64) (v float64, kept bool) {
	switch q {
	case 50:
		return p.p50, true
	case 95:
		return p.p95, true
	case 99:
		return p.p99, true
	}
	return 0, false
}

// opHistograms decodes each of r's op histograms once and hands it to fn
// (op types without one are skipped), then returns the run's percentiles:
// its op types' and their merge's. scratch is reset and holds the merge, so
// that a group's runs share one histogram.
func opHistograms(r *result.Run, scratch *hdr.Histogram, fn func(op result.Op, h *hdr.Histogram)) (runLatency, error) {
	scratch.Reset()
	var lat runLatency
	for _, op := range r.Ops {
		if len(op.Histogram) == 0 {
			continue
		}
		h, err := hist.Decode(op.Histogram)
		if err != nil {
			return lat, fmt.Errorf("run %d, operation %s: %w", r.ID, op.Name, err)
		}
		if p := percentilesOf(h); p.ok {
			if lat.ops == nil {
				lat.ops = map[string]percentiles{}
			}
			lat.ops[op.Name] = p
		}
		// Merge reports values it had to drop; both sides use hist's range, so none are.
		scratch.Merge(h)
		fn(op, h)
	}
	lat.all = percentilesOf(scratch)
	return lat, nil
}

// runLatencies returns each run's latency, computing them when the group
// was not built by GroupRuns.
func (g *Group) runLatencies() []runLatency {
	if len(g.latency) == len(g.Runs) {
		return g.latency
	}
	out := make([]runLatency, len(g.Runs))
	scratch := hist.New()
	for i, r := range g.Runs {
		out[i], _ = opHistograms(r, scratch, func(result.Op, *hdr.Histogram) {}) // GroupRuns refuses undecodable histograms
	}
	g.latency = out
	return out
}
