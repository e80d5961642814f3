package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// Two test kinds: one whose headline counts one op type among several
// (New-Orders per minute, like TPC-C's NOPM), one whose headline is a time.
func init() {
	kinds.Register(kinds.Info{Kind: "test-orders", Headline: result.Headline{Name: "NOPM", Unit: "NOPM",
		HigherIsBetter: true, Field: result.FieldRequests, Ops: []string{"new_order"}, Per: 60}})
	kinds.Register(kinds.Info{Kind: "test-seconds", Headline: result.Headline{Name: "query time", Unit: "s",
		HigherIsBetter: false, Field: result.FieldSeconds}})
}

// orderRun ran 60 s: newOrders New-Orders and payments payments.
func orderRun(id int64, target string, newOrders, payments int64) *result.Run {
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "orders", Kind: "test-orders",
		Clients: 4, Status: result.StatusOK, Duration: 60 * time.Second,
		Summary: result.Summary{Transactions: newOrders + payments, Throughput: float64(newOrders+payments) / 60},
		Ops:     []result.Op{{Name: "new_order", Count: newOrders}, {Name: "payment", Count: payments}}}
}

func TestHeadlineCountsOnlyItsOpTypes(t *testing.T) {
	// a: many payments, few New-Orders; b: the other way round. a's total
	// throughput is higher, b's NOPM is.
	var runs []*result.Run
	for i := range int64(4) {
		runs = append(runs, orderRun(2*i+1, "a", 600+i, 3000), orderRun(2*i+2, "b", 900+i, 600))
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	a, b := groups[0], groups[1]
	if a.Target != "a" || a.Headline.Name != "NOPM" || a.Headline.Unit != "NOPM" {
		t.Fatalf("group %s headline %+v", a.Target, a.Headline)
	}
	// New-Orders per minute over 60 s = the count: median of 600…603.
	if a.Median != 601.5 || b.Median != 901.5 {
		t.Errorf("medians %v, %v; want 601.5, 901.5 (New-Orders only)", a.Median, b.Median)
	}
	if !a.PerOpShown() || len(a.Ops) != 2 || !a.Ops[0].Counted || a.Ops[1].Counted || a.Ops[1].Rate != 50 {
		t.Errorf("per-op stats %+v", a.Ops)
	}
	cmp, err := Compare(groups, "a", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	m := cmp.Cells[0].Headline
	if m.Name != "NOPM" || m.Verdict != Faster || m.Value != 901.5 || m.Base != 601.5 {
		t.Errorf("b against a: %+v", m)
	}
	if g := cmp.GeoMeans[0]; g.Headline.Name != "NOPM" || math.Abs(g.Value-901.5) > 1e-9 {
		t.Errorf("geomean %+v", g)
	}

	// A run whose ops the headline does not count (an import that kept no
	// op types) falls back to its throughput.
	r := orderRun(99, "c", 0, 0)
	r.Ops, r.Summary.Throughput = nil, 123
	if m := Headline(r); m.Name != "throughput" || m.Value != 123 {
		t.Errorf("fallback %+v", m)
	}
	// A stored metric wins over the kind's.
	r.Summary.Metric = &result.Metric{Headline: result.Headline{Name: "x", Unit: "y", HigherIsBetter: true}, Value: 7}
	if m := Headline(r); m.Name != "x" || m.Value != 7 {
		t.Errorf("stored metric %+v", m)
	}
}

// secondsRun stores its headline the way native runs do.
func secondsRun(id int64, target string, clients int, secs float64) *result.Run {
	h := kinds.Headline("test-seconds")
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "queries", Kind: "test-seconds",
		Clients: clients, Status: result.StatusOK, Duration: time.Minute,
		Summary: result.Summary{Throughput: 100 / secs, Metric: &result.Metric{Headline: h, Value: secs}}}
}

func TestLowerIsBetterHeadline(t *testing.T) {
	var runs []*result.Run
	id := int64(0)
	add := func(target string, clients int, secs ...float64) {
		for _, s := range secs {
			id++
			runs = append(runs, secondsRun(id, target, clients, s))
		}
	}
	add("fast", 1, 10, 11, 10.5, 10.2)
	add("fast", 2, 8, 8.1, 8.2, 7.9) // the best: the smallest time
	add("fast", 4, 9, 9.1, 9.2, 8.9)
	add("slow", 1, 20, 21, 20.5, 20.2)
	add("slow", 2, 16, 16.2, 16.4, 15.8)
	add("slow", 4, 18, 18.2, 18.4, 17.8)
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	peaks := Peaks(groups, "fast")
	for _, p := range peaks {
		if p.Clients != 2 {
			t.Errorf("%s peak at %d clients (%v s), want 2, the smallest time", p.Target, p.Clients, p.Value)
		}
		if p.Target == "slow" && math.Abs(p.Degradation-100) > 1e-9 {
			// (16.1 / 8.05 − 1) × 100: twice the time is 100 % worse.
			t.Errorf("slow degradation %v %%, want +100 (worse)", p.Degradation)
		}
	}
	cmp, err := Compare(groups, "slow", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range cmp.Cells {
		if m := cc.Headline; m.Verdict != Faster || m.HigherIsBetter || m.Unit != "s" {
			t.Errorf("fast against slow at %d clients: %+v, want faster", cc.Other.Clients, m)
		}
	}
	if cmp.Cells[0].PerDollar != 0 {
		t.Error("a time has no per-dollar figure")
	}
	cmp, _ = Compare(groups, "fast", 0.05)
	if m := cmp.Cells[0].Headline; m.Verdict != Slower {
		t.Errorf("slow against fast: %v, want slower", m.Verdict)
	}
}
