package analysis

import (
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// The server view (result.ServerView) is the engine's own account of a run.
// Analysis knows no engine: it pools views and compares wait states' shares
// by name and number only.

// PoolServerView pools the server views of runs (a cell's repetitions):
// waits summed, so that each state's share is over every active-session
// sample; counters' growth and rates and gauges' means averaged over the
// runs that have them, gauges' maxima the largest. Nil when no run has a
// view with samples.
func PoolServerView(runs []*result.Run) *result.ServerView {
	var views []*result.ServerView
	for _, r := range runs {
		if r.ServerView != nil && r.ServerView.Samples > 0 {
			views = append(views, r.ServerView)
		}
	}
	if len(views) == 0 {
		return nil
	}
	if len(views) == 1 {
		return views[0]
	}
	out := &result.ServerView{Interval: views[0].Interval}
	type acc struct {
		unit string
		a, b float64
		n    int
		max  float64
	}
	counters, gauges := map[string]*acc{}, map[string]*acc{}
	waits := map[string]int64{}
	for _, v := range views {
		out.Samples += v.Samples
		out.Seconds += v.Seconds
		out.Active += v.Active
		for _, c := range v.Counters {
			a := counters[c.Name]
			if a == nil {
				a = &acc{unit: c.Unit}
				counters[c.Name] = a
			}
			a.a += c.Delta
			a.b += c.PerSecond
			a.n++
		}
		for _, g := range v.Gauges {
			a := gauges[g.Name]
			if a == nil {
				a = &acc{unit: g.Unit, max: g.Max}
				gauges[g.Name] = a
			}
			a.a += g.Mean
			a.max = max(a.max, g.Max)
			a.n++
		}
		for _, w := range v.Waits {
			waits[w.Name] += w.Samples
		}
	}
	for _, name := range sortedKeys(counters) {
		a := counters[name]
		out.Counters = append(out.Counters, result.ViewCounter{Name: name, Unit: a.unit, Delta: a.a / float64(a.n), PerSecond: a.b / float64(a.n)})
	}
	for _, name := range sortedKeys(gauges) {
		a := gauges[name]
		out.Gauges = append(out.Gauges, result.ViewGauge{Name: name, Unit: a.unit, Mean: a.a / float64(a.n), Max: a.max})
	}
	for name, n := range waits {
		out.Waits = append(out.Waits, result.ViewWait{Name: name, Samples: n})
	}
	SortWaits(out.Waits)
	// Buckets do not pool (each run has its own span and width): the
	// first run's stand for the shares over time.
	out.Buckets = views[0].Buckets
	return out
}

// SortWaits orders waits by samples, most first, then by name.
func SortWaits(ws []result.ViewWait) {
	sort.Slice(ws, func(i, j int) bool {
		return ws[i].Samples > ws[j].Samples || ws[i].Samples == ws[j].Samples && ws[i].Name < ws[j].Name
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Thresholds of a marked difference in a wait state's share between two
// targets of one cell: at least WaitPoints percentage points apart and the
// larger at least WaitRatio times the smaller. Both, so that neither 2 %
// against 1 % nor 60 % against 50 % is called out.
const (
	WaitPoints = 0.05
	WaitRatio  = 2.0
	// minActiveSamples is the fewest active-session samples a view needs
	// for its shares to be compared: a handful of samples has no shares.
	minActiveSamples = 20
	// maxWaitFindings bounds the differences named per cell.
	maxWaitFindings = 3
)

// WaitDifference is a wait state whose share differs markedly between two
// targets of one cell: High's sessions were in it in HighShare of their
// active-session samples, Low's in LowShare (0 to 1).
type WaitDifference struct {
	Study, Workload, Kind, Params string
	// Cell names the cell by what varies: "tpcb tpcb-like, 8 clients".
	Cell                string
	Clients             int
	Level               string
	Wait                string
	High, Low           string
	HighShare, LowShare float64
}

// WaitDifferences finds, per cell (scenario and clients), the wait states
// whose shares differ markedly between the target with the largest share
// and the one with the smallest, largest difference first within a cell,
// at most maxWaitFindings per cell, cells in the groups' order.
func WaitDifferences(groups []*Group) []WaitDifference {
	type cell struct {
		first  *Group
		views  []*result.ServerView
		target []string
	}
	var order []string
	cells := map[string]*cell{}
	for _, g := range groups {
		v := PoolServerView(g.Runs)
		if v == nil || v.Active < minActiveSamples {
			continue
		}
		k := strings.Join([]string{g.Study, g.Workload, g.Kind, g.Params, g.Level}, "\x00")
		if g.Level == "" {
			k += "\x00" + strconv.Itoa(g.Clients)
		}
		c := cells[k]
		if c == nil {
			c = &cell{first: g}
			cells[k] = c
			order = append(order, k)
		}
		c.views = append(c.views, v)
		c.target = append(c.target, g.Target)
	}
	names := NewNamer(groups)
	var out []WaitDifference
	for _, k := range order {
		c := cells[k]
		if len(c.views) < 2 {
			continue
		}
		seen := map[string]bool{}
		var found []WaitDifference
		for _, v := range c.views {
			for _, w := range v.Waits {
				if seen[w.Name] {
					continue
				}
				seen[w.Name] = true
				hi, lo := -1, -1
				for i, u := range c.views {
					s := u.Share(w.Name)
					if hi < 0 || s > c.views[hi].Share(w.Name) {
						hi = i
					}
					if lo < 0 || s < c.views[lo].Share(w.Name) {
						lo = i
					}
				}
				hs, ls := c.views[hi].Share(w.Name), c.views[lo].Share(w.Name)
				if hs-ls >= WaitPoints && hs >= WaitRatio*ls {
					g := c.first
					found = append(found, WaitDifference{Study: g.Study, Workload: g.Workload, Kind: g.Kind, Params: g.Params,
						Cell: joinComma(names.Scenario(g), clientsText(g.Clients)), Clients: g.Clients, Level: g.Level, Wait: w.Name,
						High: c.target[hi], Low: c.target[lo], HighShare: hs, LowShare: ls})
				}
			}
		}
		sort.SliceStable(found, func(i, j int) bool {
			return found[i].HighShare-found[i].LowShare > found[j].HighShare-found[j].LowShare
		})
		if len(found) > maxWaitFindings {
			found = found[:maxWaitFindings]
		}
		out = append(out, found...)
	}
	return out
}
