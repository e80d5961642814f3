package hist

import (
	"fmt"
	"math"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/result"
)

// Interval turns one tick's stats per op type into the lossless form a series
// point stores: an encoded histogram and exact counts per op type. Op types
// with nothing in the interval are left out.
func Interval(names []string, stats []*Stats) ([]result.IntervalOp, error) {
	var out []result.IntervalOp
	for i, s := range stats {
		if s.Count == 0 && s.ErrorCount() == 0 {
			continue
		}
		iv := result.IntervalOp{Name: names[i], Count: s.Count, Items: s.Items, Bytes: s.Bytes, SumUs: s.SumUs}
		if e := s.ErrorMap(); len(e) > 0 {
			iv.Errors = e
		}
		if s.Count > 0 {
			enc, err := Encode(s.Hist)
			if err != nil {
				return nil, fmt.Errorf("encoding interval histogram of %s: %w", names[i], err)
			}
			iv.Histogram = string(enc)
		}
		out = append(out, iv)
	}
	return out, nil
}

// MergeSeries merges the per-second series of several runs measured at the same
// time (load generators of one cell) into one: points are matched by second,
// each op type's interval histograms are merged, and the point's quantiles are
// read from the merged histogram, so they are exact, never averages of
// percentiles. Rates and client CPU add up. Every point must carry its
// interval histograms (series stored before schema 3 do not): merging
// quantiles without them would be a guess, so it is refused.
func MergeSeries(series ...[]result.SeriesPoint) ([]result.SeriesPoint, error) {
	type acc struct {
		pt   result.SeriesPoint
		ops  map[string]*result.IntervalOp
		hist map[string]*hdr.Histogram
		name []string
	}
	bySecond := map[int]*acc{}
	for gi, s := range series {
		for _, p := range s {
			if p.Hists == nil && p.Ops+p.Errors > 0 {
				return nil, fmt.Errorf("series %d, second %d: no interval histograms (stored before schema 3), cannot merge exactly", gi+1, p.Second)
			}
			a := bySecond[p.Second]
			if a == nil {
				a = &acc{pt: result.SeriesPoint{Second: p.Second, Server: p.Server, Missed: true},
					ops: map[string]*result.IntervalOp{}, hist: map[string]*hdr.Histogram{}}
				bySecond[p.Second] = a
			}
			a.pt.Rate += p.Rate
			a.pt.CPU += p.CPU
			a.pt.CPUWait += p.CPUWait
			// Missed by every generator: no one read the second.
			a.pt.Missed = a.pt.Missed && p.Missed
			for _, iv := range p.Hists {
				o := a.ops[iv.Name]
				if o == nil {
					o = &result.IntervalOp{Name: iv.Name}
					a.ops[iv.Name] = o
					a.name = append(a.name, iv.Name)
				}
				o.Count += iv.Count
				o.Items += iv.Items
				o.Bytes += iv.Bytes
				o.SumUs += iv.SumUs
				for c, n := range iv.Errors {
					if o.Errors == nil {
						o.Errors = map[result.ErrorClass]int64{}
					}
					o.Errors[c] += n
				}
				if len(iv.Histogram) == 0 {
					continue
				}
				h, err := Decode([]byte(iv.Histogram))
				if err != nil {
					return nil, fmt.Errorf("series %d, second %d, %s: %w", gi+1, p.Second, iv.Name, err)
				}
				if a.hist[iv.Name] == nil {
					a.hist[iv.Name] = New()
				}
				a.hist[iv.Name].Merge(h)
			}
		}
	}
	seconds := make([]int, 0, len(bySecond))
	for s := range bySecond {
		seconds = append(seconds, s)
	}
	sort.Ints(seconds)
	out := make([]result.SeriesPoint, 0, len(seconds))
	for _, sec := range seconds {
		a := bySecond[sec]
		all := New()
		var sum float64
		for _, name := range a.name {
			o := a.ops[name]
			if h := a.hist[name]; h != nil {
				enc, err := Encode(h)
				if err != nil {
					return nil, fmt.Errorf("second %d, %s: %w", sec, name, err)
				}
				o.Histogram = string(enc)
				all.Merge(h)
			}
			a.pt.Ops += o.Count
			for _, n := range o.Errors {
				a.pt.Errors += n
			}
			sum += o.SumUs
			a.pt.Hists = append(a.pt.Hists, *o)
		}
		fillQuantiles(&a.pt, all, sum)
		out = append(out, a.pt)
	}
	return out, nil
}

// fillQuantiles sets a point's latency fields from its merged histogram.
func fillQuantiles(pt *result.SeriesPoint, all *hdr.Histogram, sumUs float64) {
	if pt.Ops == 0 {
		return
	}
	pt.Mean = sumUs / float64(pt.Ops)
	pt.P50 = float64(all.ValueAtQuantile(50))
	pt.P95 = float64(all.ValueAtQuantile(95))
	pt.P99 = float64(all.ValueAtQuantile(99))
	pt.Max = float64(all.Max())
	if math.IsNaN(pt.Mean) {
		pt.Mean = 0
	}
}
