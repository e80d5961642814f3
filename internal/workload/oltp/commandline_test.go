package oltp

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// histOf records latencies (µs) and returns the encoded histogram.
func histOf(t *testing.T, us ...int64) []byte {
	t.Helper()
	h := hist.New()
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInterimLineIsSysbenchs: a progress reading printed as sysbench 1.0's
// --report-interval line, rates per second of the window and the
// interval's latency at --percentile.
func TestInterimLineIsSysbenchs(t *testing.T) {
	h := histOf(t, 1000, 2000, 40000, 41000)
	tick := kinds.Tick{Elapsed: 2 * time.Second, Window: 2 * time.Second, Clients: 4,
		Point: result.SeriesPoint{Ops: 4, Errors: 2, Hists: []result.IntervalOp{{Name: "oltp_read_write", Count: 4, Histogram: string(h),
			Errors: map[result.ErrorClass]int64{result.ErrConnection: 2}}}},
		Previous: map[string]int64{"queries_read": 100, "queries_write": 10, "queries_other": 4},
		Counts:   map[string]int64{"queries_read": 156, "queries_write": 26, "queries_other": 12}}
	var b bytes.Buffer
	interimLine(&b, tick, kinds.Printing{printPercentile: int64(99)})
	want := "[ 2s ] thds: 4 tps: 2.00 qps: 40.00 (r/w/o: 28.00/8.00/4.00) lat (ms,99%): 41.02 err/s: 1.00 reconn/s: 1.00\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	interimLine(&b, tick, nil)
	if !strings.Contains(b.String(), "lat (ms,95%): ") {
		t.Errorf("without --percentile: %q, want sysbench's 95th", b.String())
	}
}

// TestSummaryPrintsTheHistogramAndTheAskedPercentile: --histogram prints
// sysbench's histogram (values in ms, a bar of stars, counts), --percentile
// the percentile asked for instead of the 95th.
func TestSummaryPrintsTheHistogramAndTheAskedPercentile(t *testing.T) {
	r := &result.Run{Kind: "oltp", Clients: 1, Duration: time.Second,
		Ops:     []result.Op{{Name: "oltp_read_write", Count: 4, Histogram: histOf(t, 1000, 1000, 1000, 50000)}},
		Summary: result.Summary{Transactions: 4}}
	r.Env.Set(kinds.PrintingKey, kinds.Printing{printHistogram: true, printPercentile: int64(50)})
	var b bytes.Buffer
	peerSummary(&b, r)
	out := b.String()
	for _, re := range []string{
		`(?m)^Latency histogram \(values are in milliseconds\)\n       value  ------------- distribution ------------- count\n`,
		`(?m)^ +1\.0\d\d \|\*{40} 3$`,
		`(?m)^ +5\d\.\d{3} \|\*{13} +1$`,
		`(?m)^         50th percentile: +1\.00$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("summary does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "95th percentile") {
		t.Errorf("--percentile 50 still prints the 95th:\n%s", out)
	}
}
