package analysis

import (
	"math"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// study: two targets × modes ro/rw × clients 1, 2 × 3 repetitions; "b" is
// 10× slower on rw and the same on ro.
func findingsStudy() []*result.Run {
	var runs []*result.Run
	id := int64(0)
	for rep := 1; rep <= 3; rep++ {
		for _, mode := range []string{"ro", "rw"} {
			for _, c := range []int{1, 2} {
				for _, target := range []string{"a", "b"} {
					id++
					tps := float64(1000*c) + float64(rep*7)
					if target == "b" && mode == "rw" {
						tps /= 10
					}
					if target == "b" && mode == "ro" {
						tps += float64(rep%2*10) - 5
					}
					r := okRun(id, target, c, tps)
					r.Repetition = rep
					r.Params = map[string]any{"scale": int64(10), "mode": mode}
					runs = append(runs, r)
				}
			}
		}
	}
	return runs
}

func TestNamerNamesWhatVaries(t *testing.T) {
	gs, err := GroupRuns(findingsStudy())
	if err != nil {
		t.Fatal(err)
	}
	n := NewNamer(gs)
	g := gs[len(gs)-1] // b, rw, 2 clients
	if got := n.Scenario(g); got != "tpcb rw" {
		t.Errorf("scenario %q", got)
	}
	if got := n.Cell(g); got != "rw, 2 clients" {
		t.Errorf("cell %q", got)
	}
	if got := n.Label(g); got != "b · tpcb rw, 2 clients" {
		t.Errorf("label %q", got)
	}
	if n.Varies(g, "scale") || !n.Varies(g, "mode") {
		t.Errorf("scale is the same everywhere, mode varies")
	}
}

func TestSummarise(t *testing.T) {
	gs, err := GroupRuns(findingsStudy())
	if err != nil {
		t.Fatal(err)
	}
	ws := Warnings(gs, "")
	f, err := Summarise(gs, "", 0, ws)
	if err != nil {
		t.Fatal(err)
	}
	if f.Baseline != "a" || len(f.Items) != 2 {
		t.Fatalf("baseline %q, %d findings", f.Baseline, len(f.Items))
	}
	ro, rw := f.Items[0], f.Items[1]
	if rw.Scenario != "tpcb rw" || rw.Slower != 2 || rw.Tests[0] != WelchTest || !near(rw.GeoDelta, -90, 1e-9) ||
		!near(rw.MinDelta, -90, 1e-9) || !near(rw.MaxDelta, -90, 1e-9) {
		t.Errorf("rw finding %+v", rw)
	}
	// The geometric mean of the per-cell ratios: medians 1014/1014 → ratio
	// (1014+5)/1014 at 1 client … computed with GeoMean here.
	var base, val []float64
	for _, cc := range ro.Cells {
		base, val = append(base, cc.Headline.Base), append(val, cc.Headline.Value)
	}
	if want := (GeoMean(val)/GeoMean(base) - 1) * 100; !near(ro.GeoDelta, want, 1e-12) || math.Abs(ro.GeoDelta) > 1 {
		t.Errorf("ro geomean delta %v, want %v", ro.GeoDelta, want)
	}
	if ro.Same != 2 || ro.NeedN <= 3 {
		t.Errorf("ro finding %+v", ro)
	}
	if rw.Peak == nil || rw.BasePeak == nil || rw.Peak.Clients != 2 || rw.BasePeak.Target != "a" {
		t.Errorf("peaks %+v %+v", rw.Peak, rw.BasePeak)
	}
}

func TestGroupWarningsByImpact(t *testing.T) {
	gs, err := GroupRuns(findingsStudy())
	if err != nil {
		t.Fatal(err)
	}
	ws := []Warning{
		{Check: CheckPeakEdge, Runs: []int64{1, 2}, Message: "edge"},
		{Check: checkSameHost, Runs: []int64{1}, Message: "embedded", Info: true},
		{Check: checkDrift, Runs: []int64{3}, Message: "drift 3"},
		{Check: checkDrift, Runs: []int64{7}, Message: "drift 7"},
		{Check: CheckConfig, Runs: []int64{2, 1}, Message: "b differs from a"},
	}
	got := GroupWarnings(ws, gs)
	var order []string
	for _, wg := range got {
		order = append(order, wg.Check)
	}
	want := []string{CheckConfig, checkDrift, CheckPeakEdge, checkSameHost}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if d := got[1]; len(d.Warnings) != 2 || len(d.Cells) != 2 || d.Runs != 2 {
		t.Errorf("drift group %+v", d)
	}
}

// Every check has a place in the impact order: a check missing from it would
// rank with the configuration difference, first.
func TestEveryCheckIsRanked(t *testing.T) {
	ranked := map[string]bool{}
	for _, c := range impactOrder {
		ranked[c] = true
	}
	for _, c := range Checks {
		if !ranked[c.Name] {
			t.Errorf("check %q has no place in impactOrder", c.Name)
		}
	}
}
