package ycsb

import (
	"bytes"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// TestStatusLineIsYCSBs: a progress reading printed as YCSB's StatusThread
// prints it with -s: the date to the millisecond, whole seconds, the
// operations so far, the current rate, and per op type the interval's
// count, max, min, mean and percentiles in µs.
func TestStatusLineIsYCSBs(t *testing.T) {
	h := hist.New()
	for _, v := range []int64{100, 200, 300} {
		_ = h.RecordValue(v)
	}
	enc, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 15, 4, 5, 7e6, time.Local)
	tick := kinds.Tick{Now: now, Elapsed: 10*time.Second + 4*time.Millisecond, Window: 10 * time.Second,
		Point:    result.SeriesPoint{Ops: 3, Hists: []result.IntervalOp{{Name: ycsbparams.Read, Count: 3, Histogram: string(enc)}}},
		Previous: map[string]int64{ycsbparams.Operations: 1000}, Counts: map[string]int64{ycsbparams.Operations: 13345}}
	var b bytes.Buffer
	statusLine(&b, tick, nil)
	want := "2026-11-27 15:04:05:007 10 sec: 13345 operations; 1234.5 current ops/sec; [READ: Count=3, Max=300, Min=100, Avg=200, 90=300, 99=300, 99.9=300, 99.99=300]\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
