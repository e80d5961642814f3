package bulkindex

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 38: a report of bulk indexing had no table shaped like OSB's
// summary, and its average latency read "–" for OSB's imports (OSB prints
// none). The kind declares one: per cell and task, throughput min / median /
// max, p90 and p100 latency and the error rate, from fairbench's own runs
// (series and histograms) and from OSB's printed numbers alike.
func TestBulkIndexReportHasOSBsSummaryTable(t *testing.T) {
	h := hist.New()
	for v := int64(1); v <= 100; v++ {
		h.RecordValue(v * 1000) // 1 … 100 ms
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	native := &result.Run{Target: "native", Clients: 2, Status: result.StatusOK, Kind: searchparams.Kind, Duration: 2 * time.Second,
		Ops: []result.Op{{Name: opBulk, Count: 100, Items: 3000, Histogram: b, Errors: map[result.ErrorClass]int64{result.ErrorClass("rejected"): 1000}}},
		Series: []result.SeriesPoint{
			{Second: 1, Hists: []result.IntervalOp{{Name: opBulk, Count: 50, Items: 1000}}},
			{Second: 2, Hists: []result.IntervalOp{{Name: opBulk, Count: 50, Items: 2000}}},
		}}
	// An OSB import, through the results store's JSON as a report reads it.
	env := map[string]any{"osb": map[string]any{"tasks": map[string]any{"index-append": map[string]any{
		"throughput": map[string]float64{"min": 900, "mean": 1000, "median": 1010, "max": 1100}, "unit": "docs/s", "error_rate": 0.0,
		"90th percentile latency (ms)": 80.5, "100th percentile latency (ms)": 120.0}}}}
	raw, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	imported := &result.Run{Target: "osb", Clients: 8, Status: result.StatusOK, Kind: searchparams.Kind, Source: "opensearch-benchmark",
		Ops: []result.Op{{Name: "index-append"}}}
	if err := json.Unmarshal(raw, &imported.Env); err != nil { // whole numbers come back as int64
		t.Fatal(err)
	}
	info, ok := kinds.Lookup(searchparams.Kind)
	if !ok || info.Sections == nil {
		t.Fatalf("the %s kind declares no report section", searchparams.Kind)
	}
	secs := info.Sections([]*result.Run{native, imported}, "native")
	if len(secs) != 1 {
		t.Fatalf("sections %+v", secs)
	}
	want := []string{
		// Running averages 1000/1 and 3000/2 docs/s; p90 90 ms, p100 100 ms
		// (within the histogram's 3 significant digits); 1000 refused of 4000 documents.
		"native 2 bulk 1000 1250 1500 docs/s 90.047 100.031 25",
		"osb 8 index-append 900 1010 1100 docs/s 80.5 120 0",
	}
	for i, w := range want {
		if i >= len(secs[0].Rows) {
			t.Fatalf("rows %v, want %d", secs[0].Rows, len(want))
		}
		if got := strings.Join(secs[0].Rows[i], " "); got != w {
			t.Errorf("row %d %q, want %q", i, got, w)
		}
	}
	if _, ok := kinds.Lookup("search"); !ok {
		t.Fatalf("no search kind")
	}
}

// Issue 41: a report drops each run's series once it has read it
// (result.Run.DropSeries); the OSB summary table, whose throughput figures
// come from the series, reads them from the run's digest
// (kinds.Info.DigestSeries) and gives the same rows.
func TestBulkIndexSectionReadsADigestedRunAsItsSeries(t *testing.T) {
	h := hist.New()
	for v := int64(1); v <= 100; v++ {
		h.RecordValue(v * 1000)
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	run := func() *result.Run {
		r := &result.Run{Target: "native", Clients: 2, Status: result.StatusOK, Kind: searchparams.Kind, Duration: 3 * time.Second,
			Ops: []result.Op{{Name: opBulk, Count: 150, Items: 6000, Histogram: b}, {Name: "search", Count: 90, Histogram: b}}}
		for sec := 1; sec <= 3; sec++ {
			r.Series = append(r.Series, result.SeriesPoint{Second: sec, Hists: []result.IntervalOp{
				{Name: opBulk, Count: 50, Items: int64(1000 * sec)}, {Name: "search", Count: int64(20 + 10*sec)}}})
		}
		return r
	}
	info, ok := kinds.Lookup(searchparams.Kind)
	if !ok || info.Sections == nil || info.DigestSeries == nil {
		t.Fatalf("the %s kind declares no report section or no digest of its series", searchparams.Kind)
	}
	want := info.Sections([]*result.Run{run()}, "native")
	digested := run()
	digested.DropSeries(&result.SeriesDigest{Kind: kinds.DigestSeries(digested)})
	if digested.Series != nil {
		t.Fatal("the series was not dropped")
	}
	got := info.Sections([]*result.Run{digested}, "native")
	if len(want) != 1 || len(got) != 1 || len(want[0].Rows) != 2 {
		t.Fatalf("sections from the series %+v, from the digest %+v", want, got)
	}
	for i, row := range want[0].Rows {
		if g, w := strings.Join(got[0].Rows[i], " "), strings.Join(row, " "); g != w {
			t.Errorf("row %d from the digest %q, from the series %q", i, g, w)
		}
	}
}
