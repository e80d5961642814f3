package analysis

import (
	"math"
	"sort"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Peak is the best median headline value of one target in one scenario
// (study, workload and parameters) over its clients sweep: the "max TPS
// (clients)" cell of published comparisons, or the smallest time when the
// headline is a time.
type Peak struct {
	Study, Workload, Kind, Params string
	ParamValues                   params.Values // Params, as values
	Target                        string
	Headline                      result.Headline
	Clients                       int     // where the peak was reached
	Value                         float64 // median headline value at Clients
	N                             int     // completed runs behind it
	Runs                          []int64 // their ids
	Levels                        []int   // client counts with a completed run, ascending
	// AtEdge: the peak is at the largest (or, with three or more levels, the
	// smallest, if that is above one client) client count of the sweep, so the
	// knee of the curve was not found and a wider sweep might find a higher
	// peak. A peak at one client is a finding, not an edge: no sweep goes lower.
	AtEdge bool
	// SingleRun: the peak rests on one run, so it may be that run's luck.
	SingleRun bool
	// Degradation is how much worse than the baseline's peak, in %:
	// (1 − peak / baseline peak) × 100 when higher is better, (peak /
	// baseline peak − 1) × 100 for a time; positive means worse. NaN for the
	// baseline itself or without a baseline peak.
	Degradation float64
	Base        *Peak // the baseline's peak in the same scenario, nil if none
}

// Scenario names the peak's scenario for reports.
func (p *Peak) Scenario() string {
	s := p.Workload
	if p.Params != "" {
		s += " " + p.Params
	}
	return s
}

// Peaks computes, per scenario and target, the peak over the clients sweep,
// and the degradation of every target against the baseline's peak (baseline
// "" computes peaks only). Scenarios keep the groups' order; targets within a
// scenario too.
func Peaks(groups []*Group, baseline string) []*Peak {
	type key struct{ study, workload, kind, params, target string }
	peaks := map[key]*Peak{}
	var order []key
	for _, g := range groups {
		if g.N == 0 {
			continue
		}
		k := key{g.Study, g.Workload, g.Kind, g.Params, g.Target}
		p := peaks[k]
		if p == nil {
			p = &Peak{Study: g.Study, Workload: g.Workload, Kind: g.Kind, Params: g.Params, ParamValues: g.ParamValues, Target: g.Target,
				Headline: g.Headline, Degradation: math.NaN()}
			peaks[k] = p
			order = append(order, k)
		}
		p.Levels = append(p.Levels, g.Clients)
		// Strictly better: on a tie the smaller client count is the peak,
		// since it reaches the same value with less concurrency.
		if p.N == 0 || Better(p.Headline, g.Median, p.Value) {
			p.Value, p.Clients, p.N, p.Runs = g.Median, g.Clients, g.N, runIDs(g.Runs)
		}
	}
	out := make([]*Peak, 0, len(order))
	for _, k := range order {
		p := peaks[k]
		sort.Ints(p.Levels)
		last := len(p.Levels) - 1
		p.AtEdge = last > 0 && (p.Clients == p.Levels[last] || (last >= 2 && p.Clients == p.Levels[0] && p.Clients > 1))
		p.SingleRun = p.N == 1
		out = append(out, p)
	}
	if baseline == "" {
		return out
	}
	bl := newBaselines(groups, baseline)
	for _, p := range out {
		own := bl.For(p.Target)
		if own == "" || own == p.Target {
			continue
		}
		b := peaks[key{p.Study, p.Workload, p.Kind, p.Params, own}]
		if b == nil || !(b.Value > 0) || !sameHeadline(p.Headline, b.Headline) {
			continue
		}
		p.Base = b
		if p.Headline.HigherIsBetter {
			p.Degradation = (1 - p.Value/b.Value) * 100
		} else {
			p.Degradation = (p.Value/b.Value - 1) * 100
		}
	}
	return out
}
