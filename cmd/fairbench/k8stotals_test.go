package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// k8s run's progress reads the per-second totals from the results store,
// not from the pods' logs: the coordinator's session of the study, its
// newest cell, and each second every generator published, added up once.
func TestK8sRunPrintsTotalsFromTheStore(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var log bytes.Buffer
	c := &cellTotals{st: st, hash: "h", name: "scale-out", prefix: "k8s run fb-1"}
	c.poll(ctx, &log) // no session yet: nothing, and no complaint
	if log.Len() != 0 {
		t.Fatalf("before the coordinator began: %q", log.String())
	}
	now := time.Now()
	sid, err := st.OpenSession(ctx, "h", "scale-out", 7, 2, now)
	if err != nil {
		t.Fatal(err)
	}
	for seq, key := range []string{"db/tpcb/c4/r1", "db/tpcb/c8/r1"} {
		if err := st.PublishCell(ctx, sid, seq+1, key); err != nil {
			t.Fatal(err)
		}
	}
	reading := func(slot, ops int) store.PartTick {
		h := hist.New()
		for range ops {
			h.RecordValue(2000) //nolint:errcheck // within range
		}
		enc, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return store.PartTick{Slot: slot, Elapsed: time.Duration(slot) * time.Second, Window: time.Second, Point: result.SeriesPoint{
			Ops: int64(ops), Rate: float64(ops), Hists: []result.IntervalOp{{Name: "tpcb", Count: int64(ops), SumUs: float64(2000 * ops), Histogram: string(enc)}}}}
	}
	for g, ticks := range [][]store.PartTick{{reading(1, 100), reading(2, 100)}, {reading(1, 50)}} {
		if err := st.SetPart(ctx, sid, 2, g, store.PartReady, nil, "", now); err != nil {
			t.Fatal(err)
		}
		if err := st.SetPartProgress(ctx, sid, 2, g, ticks, now); err != nil {
			t.Fatal(err)
		}
	}
	c.poll(ctx, &log)
	c.poll(ctx, &log)
	got := log.String()
	want := "k8s run fb-1: cell 2 (db/tpcb/c8/r1), 1.0 s: 150.0 ops/s, lat 2.000 ms p99 2.00"
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, want) || !strings.Contains(got, "2 generators") {
		t.Errorf("k8s run printed\n%s\nwant one line for slot 1 (generator 1 has not read slot 2), starting %q", got, want)
	}
}
