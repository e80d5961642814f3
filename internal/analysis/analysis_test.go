package analysis

import (
	"math"
	"reflect"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// encode records count copies of each value.
func encode(t *testing.T, values map[int64]int64) []byte {
	t.Helper()
	h := hist.New()
	for v, n := range values {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func okRun(id int64, target string, clients int, tps float64) *result.Run {
	return &result.Run{ID: id, StudyName: "s", Target: target, Workload: "tpcb", Kind: "tpcb",
		Params: map[string]any{"scale": int64(10)}, Clients: clients, Status: result.StatusOK,
		Summary: result.Summary{Throughput: tps}}
}

// Percentiles across repetitions must come from the merged histogram. Run A is
// fast and steady, run B has a slow tail; averaging their p99s invents a
// latency that 99 % of operations did not beat by far.
func TestPercentilesComeFromMergedHistograms(t *testing.T) {
	a := map[int64]int64{100: 1000}
	b := map[int64]int64{1000: 980, 50000: 20}
	ra, rb := okRun(1, "x", 1, 10), okRun(2, "x", 1, 12)
	ra.Ops = []result.Op{{Name: "tx", Count: 1000, Histogram: encode(t, a)}}
	rb.Ops = []result.Op{{Name: "tx", Count: 1000, Histogram: encode(t, b)}}

	groups, err := GroupRuns([]*result.Run{ra, rb})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 {
		t.Fatalf("%d groups, want 1", len(groups))
	}
	g := groups[0]

	p99 := func(b []byte) float64 {
		h, err := hist.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return float64(h.ValueAtQuantile(99))
	}
	meanOfP99s := (p99(ra.Ops[0].Histogram) + p99(rb.Ops[0].Histogram)) / 2 // (100 + 50000) / 2

	all := hist.New()
	for _, m := range []map[int64]int64{a, b} {
		for v, n := range m {
			all.RecordValues(v, n)
		}
	}
	if want := float64(all.ValueAtQuantile(99)); g.P99 != want {
		t.Errorf("merged p99 = %v, want %v (p99 of one histogram holding every value)", g.P99, want)
	}
	if g.P99 != 1000 {
		t.Errorf("merged p99 = %v, want 1000: 1980 of 2000 values are at most 1000 µs", g.P99)
	}
	if g.P99 == meanOfP99s {
		t.Errorf("merged p99 equals the mean of the runs' p99s (%v); percentiles were averaged", meanOfP99s)
	}
	if g.Merged.TotalCount() != 2000 || g.Max != float64(all.Max()) || g.P50 != float64(all.ValueAtQuantile(50)) {
		t.Errorf("merged: count %d max %v p50 %v; want 2000, %d, %d", g.Merged.TotalCount(), g.Max, g.P50, all.Max(), all.ValueAtQuantile(50))
	}
}

func TestMergedHoldsEveryOperationType(t *testing.T) {
	r := okRun(1, "x", 1, 10)
	r.Ops = []result.Op{
		{Name: "read", Count: 3, Histogram: encode(t, map[int64]int64{10: 3})},
		{Name: "update", Count: 1, Histogram: encode(t, map[int64]int64{900: 1})},
		{Name: "never", Count: 0},
	}
	groups, err := GroupRuns([]*result.Run{r})
	if err != nil {
		t.Fatal(err)
	}
	g := groups[0]
	if g.Merged.TotalCount() != 4 || g.Max != 900 {
		t.Errorf("merged count %d, max %v; want 4 and 900", g.Merged.TotalCount(), g.Max)
	}
}

func TestGroupRuns(t *testing.T) {
	mk := func(id int64, target string, clients int, tps float64, st result.Status) *result.Run {
		r := okRun(id, target, clients, tps)
		r.Status = st
		if tps == 0 {
			return r
		}
		r.Summary.Transactions = int64(tps * 10)
		r.Summary.LatencyMean = 1e6 / tps
		r.Ops = []result.Op{{Name: "tx", Count: r.Summary.Transactions,
			Errors:    map[result.ErrorClass]int64{result.ErrSerialization: 1},
			Histogram: encode(t, map[int64]int64{int64(1e6 / tps): r.Summary.Transactions})}}
		return r
	}
	ok, intr, fail := result.StatusOK, result.StatusInterrupted, result.StatusFailed
	runs := []*result.Run{
		// Given out of id order on purpose: grouping follows ids, not slice order.
		mk(9, "vm", 8, 5000, intr),
		mk(1, "vm", 8, 1000, ok),
		mk(2, "k8s", 8, 800, ok),
		mk(3, "vm", 1, 200, ok),
		mk(4, "k8s", 1, 150, ok),
		mk(5, "vm", 8, 1200, ok),
		mk(6, "k8s", 8, 700, ok),
		mk(7, "vm", 1, 220, ok),
		mk(8, "k8s", 1, 0, fail),
		mk(10, "vm", 8, 1100, ok),
	}
	other := mk(11, "vm", 1, 50, ok) // second workload, seen later: sorts after tpcb
	other.Workload, other.Kind = "kv", "kv"
	other.Params = map[string]any{"ratio": "1:10"}
	scale100 := mk(12, "vm", 1, 90, ok) // same workload, other params
	scale100.Params = map[string]any{"scale": int64(100)}
	allFailed := mk(13, "bare", 1, 0, fail) // a cell that never completed
	runs = append(runs, other, scale100, allFailed)

	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		workload, params, target string
		clients, n, incomplete   int
		median                   float64
	}
	var got []row
	for _, g := range groups {
		got = append(got, row{g.Workload, g.Params, g.Target, g.Clients, g.N, g.Incomplete, g.Median})
	}
	want := []row{
		{"tpcb", "scale=10", "vm", 1, 2, 0, 210},
		{"tpcb", "scale=10", "k8s", 1, 1, 1, 150},
		{"tpcb", "scale=10", "bare", 1, 0, 1, 0},
		{"tpcb", "scale=10", "vm", 8, 3, 1, 1100}, // the interrupted 5000 tps run is not in the median
		{"tpcb", "scale=10", "k8s", 8, 2, 0, 750},
		{"tpcb", "scale=100", "vm", 1, 1, 0, 90},
		{"kv", "ratio=1:10", "vm", 1, 1, 0, 50},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("groups:\n got %v\nwant %v", got, want)
	}

	vm8 := groups[3]
	if ids := []int64{vm8.Runs[0].ID, vm8.Runs[1].ID, vm8.Runs[2].ID}; !reflect.DeepEqual(ids, []int64{1, 5, 10}) {
		t.Errorf("vm/8 runs %v, want ids 1 5 10 in order", ids)
	}
	if !reflect.DeepEqual(vm8.Values, []float64{1000, 1200, 1100}) {
		t.Errorf("vm/8 throughputs %v", vm8.Values)
	}
	if vm8.Transactions != 33000 || vm8.Errors != 3 {
		t.Errorf("vm/8 transactions %d errors %d, want 33000 and 3 (interrupted run excluded)", vm8.Transactions, vm8.Errors)
	}
	// Weighted exact mean: (10000*1000 + 12000*833.33 + 11000*909.09) / 33000 = 30000000/33000.
	if want := 3e7 / 33000.0; math.Abs(vm8.MeanLatency-want) > 1e-9 {
		t.Errorf("vm/8 mean latency %v, want %v", vm8.MeanLatency, want)
	}
	if vm8.Merged.TotalCount() != 33000 {
		t.Errorf("vm/8 merged count %d, want 33000", vm8.Merged.TotalCount())
	}
	if bare := groups[2]; bare.Merged == nil || bare.Merged.TotalCount() != 0 || bare.P99 != 0 {
		t.Errorf("all-failed group: merged %v p99 %v, want an empty histogram", bare.Merged, bare.P99)
	}
}

func TestErrorsTakeWhicheverCountARunRecorded(t *testing.T) {
	native := okRun(1, "x", 1, 10)
	native.Summary.Failed = 2
	native.Ops = []result.Op{{Name: "tx", Errors: map[result.ErrorClass]int64{result.ErrDeadlock: 2}}}
	imported := okRun(2, "x", 1, 10)
	imported.Summary.Failed = 5 // pgbench output: a total, no classes
	groups, err := GroupRuns([]*result.Run{native, imported})
	if err != nil {
		t.Fatal(err)
	}
	if groups[0].Errors != 7 {
		t.Errorf("errors %d, want 7 (2 counted once, plus 5)", groups[0].Errors)
	}
}

func TestBadHistogramIsAnError(t *testing.T) {
	r := okRun(42, "x", 1, 10)
	r.Ops = []result.Op{{Name: "tx", Histogram: []byte("not a histogram")}}
	if _, err := GroupRuns([]*result.Run{r}); err == nil {
		t.Error("GroupRuns accepted an undecodable histogram")
	}
}

// Each run's quantile comes from that run's histograms alone.
func TestRunQuantilesPerRun(t *testing.T) {
	mk := func(id int64, us ...int64) *result.Run {
		h := hist.New()
		for _, v := range us {
			h.RecordValue(v)
		}
		b, _ := hist.Encode(h)
		return &result.Run{ID: id, Target: "a", Workload: "w", Clients: 1, Status: result.StatusOK,
			Summary: result.Summary{Throughput: 1, Transactions: int64(len(us))}, Ops: []result.Op{{Name: "x", Count: int64(len(us)), Histogram: b}}}
	}
	// Run 1: 100 × 100 µs → p50 100. Run 2: 100 × 300 µs → p50 300. Run 3 has no histogram.
	var a, b []int64
	for i := 0; i < 100; i++ {
		a, b = append(a, 100), append(b, 300)
	}
	r1, r2 := mk(1, a...), mk(2, b...)
	r3 := &result.Run{ID: 3, Target: "a", Workload: "w", Clients: 1, Status: result.StatusOK, Summary: result.Summary{Throughput: 1}}
	groups, err := GroupRuns([]*result.Run{r1, r2, r3})
	if err != nil {
		t.Fatal(err)
	}
	got := RunQuantiles(groups[0], 50)
	if len(got) != 2 || got[0] != 100 || got[1] != 300 {
		t.Fatalf("RunQuantiles = %v, want [100 300]", got)
	}
}

// The runs' percentiles GroupRuns keeps (all op types merged, and each op
// type's) are the ones the runs' own histograms give, for the percentiles
// it keeps and for any other, which is read from the histograms again; a
// group put together by hand gets the same.
func TestRunPercentilesAreEachRunsOwn(t *testing.T) {
	mk := func(id int64, read, update map[int64]int64) *result.Run {
		r := okRun(id, "x", 4, 10)
		r.Ops = []result.Op{{Name: "read", Count: 1, Histogram: encode(t, read)}, {Name: "update", Count: 1, Histogram: encode(t, update)}}
		return r
	}
	runs := []*result.Run{
		mk(1, map[int64]int64{100: 900, 4000: 100}, map[int64]int64{700: 950, 9000: 50}),
		mk(2, map[int64]int64{150: 990, 20000: 10}, map[int64]int64{800: 500, 1200: 500}),
	}
	want := func(r *result.Run, op string, q float64) float64 {
		m := hist.New()
		for _, o := range r.Ops {
			if op == "" || o.Name == op {
				h, err := hist.Decode(o.Histogram)
				if err != nil {
					t.Fatal(err)
				}
				m.Merge(h)
			}
		}
		return float64(m.ValueAtQuantile(q))
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	byHand := &Group{Runs: runs}
	for _, g := range []*Group{groups[0], byHand} {
		for _, q := range []float64{50, 90, 95, 99, 99.9} {
			got := RunQuantiles(g, q)
			if len(got) != 2 || got[0] != want(runs[0], "", q) || got[1] != want(runs[1], "", q) {
				t.Errorf("RunQuantiles(%v) = %v, want [%v %v]", q, got, want(runs[0], "", q), want(runs[1], "", q))
			}
			for _, op := range []string{"read", "update"} {
				got := runOpQuantiles(g, op, q)
				if len(got) != 2 || got[0] != want(runs[0], op, q) || got[1] != want(runs[1], op, q) {
					t.Errorf("%s p%v = %v, want [%v %v]", op, q, got, want(runs[0], op, q), want(runs[1], op, q))
				}
			}
		}
		p95, p99 := runPercentiles(g)
		if !reflect.DeepEqual(p95, []float64{want(runs[0], "", 95), want(runs[1], "", 95)}) ||
			!reflect.DeepEqual(p99, []float64{want(runs[0], "", 99), want(runs[1], "", 99)}) {
			t.Errorf("runPercentiles = %v, %v", p95, p99)
		}
	}
	if RunQuantiles(groups[0], 99)[0] == RunQuantiles(groups[0], 99)[1] {
		t.Fatal("the two runs must differ for this test to tell them apart")
	}
}
