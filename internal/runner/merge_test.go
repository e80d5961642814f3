package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// Two load generators measure one cell: one against a fast server path, one
// against a slow one. The coordinator's run must be their exact merge.
func TestMergeRunsIsExact(t *testing.T) {
	gen := func(sleep time.Duration) func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
			time.Sleep(sleep)
			return rng.IntN(2), nil
		}
	}
	w := study.Workload{Kind: "fake-tpcc", Clients: []study.ClientLevel{{N: 2}}}
	a, err := runOne(t, context.Background(), gen(200*time.Microsecond), w, 0, 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runOne(t, context.Background(), gen(3*time.Millisecond), w, 0, 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MergeRuns([]*result.Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Clients != 4 || m.Summary.Transactions != a.Summary.Transactions+b.Summary.Transactions {
		t.Fatalf("clients %d, transactions %d: want 4 and %d", m.Clients, m.Summary.Transactions, a.Summary.Transactions+b.Summary.Transactions)
	}
	all := hist.New()
	for _, r := range []*result.Run{a, b} {
		for _, op := range r.Ops {
			h, err := hist.Decode(op.Histogram)
			if err != nil {
				t.Fatal(err)
			}
			all.Merge(h)
		}
	}
	if got, want := m.Summary.P99, float64(all.ValueAtQuantile(99)); got != want {
		t.Fatalf("merged p99 %.0f µs, one histogram of both says %.0f", got, want)
	}
	if avg := (a.Summary.P99 + b.Summary.P99) / 2; avg == m.Summary.P99 {
		t.Fatalf("merged p99 equals the average of the parts' p99 (%.0f): the test cannot tell them apart", avg)
	}
	wantMean := (a.Summary.LatencyMean*float64(a.Summary.Transactions) + b.Summary.LatencyMean*float64(b.Summary.Transactions)) /
		float64(m.Summary.Transactions)
	if math.Abs(m.Summary.LatencyMean-wantMean) > 1e-6*wantMean {
		t.Fatalf("pooled mean %.3f, want %.3f", m.Summary.LatencyMean, wantMean)
	}
	// Law of total variance: within-generator variance plus the spread of the generators' means.
	var within, between float64
	for _, r := range []*result.Run{a, b} {
		n := float64(r.Summary.Transactions)
		within += n * r.Summary.LatencyStddev * r.Summary.LatencyStddev
		d := r.Summary.LatencyMean - wantMean
		between += n * d * d
	}
	wantSD := math.Sqrt((within + between) / float64(m.Summary.Transactions))
	if math.Abs(m.Summary.LatencyStddev-wantSD) > 1e-6*wantSD {
		t.Fatalf("pooled stddev %.3f, want %.3f", m.Summary.LatencyStddev, wantSD)
	}
	if m.Summary.Metric == nil || m.Summary.Metric.Name != "NOPM" ||
		math.Abs(m.Summary.Metric.Value-(a.Summary.Metric.Value+b.Summary.Metric.Value)) > 1e-9 {
		t.Fatalf("merged headline %+v, want NOPM %.1f + %.1f", m.Summary.Metric, a.Summary.Metric.Value, b.Summary.Metric.Value)
	}
	var seriesOps int64
	for _, p := range m.Series {
		seriesOps += p.Ops
	}
	if seriesOps != m.Summary.Transactions {
		t.Fatalf("merged series holds %d operations, the run %d", seriesOps, m.Summary.Transactions)
	}
	if g := m.Env.Generators; len(g) != 2 {
		t.Fatalf("env generators %v, want both generators' environments", g)
	}

	b.CellKey = "another cell"
	if _, err := MergeRuns([]*result.Run{a, b}); err == nil || !strings.Contains(err.Error(), "another cell") {
		t.Fatalf("merging two cells: err %v, want a refusal naming the cell", err)
	}
}

func TestMergeRunsKeepsServiceTimesExact(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Duration(1+rng.IntN(3)) * time.Millisecond)
		return 0, nil
	}
	w := study.Workload{Kind: "fake-bulk", Clients: []study.ClientLevel{{N: 1}}, Rate: 100}
	var parts []*result.Run
	all := hist.New()
	for range 2 {
		r, err := runOne(t, context.Background(), op, w, 0, 400*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hist.Decode(r.Ops[0].ServiceHistogram)
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(h)
		parts = append(parts, r)
	}
	m, err := MergeRuns(parts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hist.Decode(m.Ops[0].ServiceHistogram)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Equals(all) {
		t.Fatalf("merged service times (%d, p99 %d µs) differ from one histogram of both parts' (%d, p99 %d µs)",
			h.TotalCount(), h.ValueAtQuantile(99), all.TotalCount(), all.ValueAtQuantile(99))
	}
}
