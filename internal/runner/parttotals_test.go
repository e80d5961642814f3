package runner

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

// tickRecorder keeps every reading it is told.
type tickRecorder struct{ ticks []kinds.Tick }

func (w *tickRecorder) CellStarted(int, study.Cell)       {}
func (w *tickRecorder) CellSkipped(int)                   {}
func (w *tickRecorder) Tick(t kinds.Tick)                 { w.ticks = append(w.ticks, t) }
func (w *tickRecorder) CellEnded(int, *result.Run, error) {}

// reading is a generator's reading of slot: ops operations, each of
// latency us µs, with their interval histogram.
func reading(t *testing.T, slot int, warmup bool, ops int, us int64) store.PartTick {
	t.Helper()
	h := hist.New()
	for range ops {
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	pt := result.SeriesPoint{Ops: int64(ops), Rate: float64(ops), P99: float64(us), Mean: float64(us),
		Hists: []result.IntervalOp{{Name: "op", Count: int64(ops), SumUs: float64(int64(ops) * us), Histogram: string(enc)}}}
	return store.PartTick{Slot: slot, Warmup: warmup, Elapsed: time.Duration(slot) * time.Second, Window: time.Second, Point: pt}
}

// The coordinator shows a slot once every generator has read it, in order
// (the warm-up's before the measured phase's), each slot once however often
// it polls, with the generators' operations added up and the percentiles
// of their merged histograms, not averaged ones.
func TestPartTotalsAddUpEachSlotOnce(t *testing.T) {
	rec := &tickRecorder{}
	var out bytes.Buffer
	r := &Runner{opt: Options{Watch: rec, Progress: &out}}
	pt := r.newPartTotals("tpcb", 6, 2)

	fast := []store.PartTick{reading(t, 1, true, 10, 100), reading(t, 1, false, 100, 100), reading(t, 2, false, 100, 100)}
	slow := []store.PartTick{reading(t, 1, true, 30, 900), reading(t, 1, false, 300, 900)}
	parts := func(a, b []store.PartTick) []store.Part {
		return []store.Part{{Generator: 0, Progress: a}, {Generator: 1, Progress: b}}
	}
	pt.seen(parts(fast, nil))
	if len(rec.ticks) != 0 {
		t.Fatalf("a slot only one of two generators read was shown: %+v", rec.ticks)
	}
	pt.seen(parts(fast, slow))
	pt.seen(parts(fast, slow)) // a poll that finds nothing new
	if len(rec.ticks) != 2 {
		t.Fatalf("shown %d readings, want the warm-up's slot 1 and the measured phase's slot 1 once each", len(rec.ticks))
	}
	warm, measured := rec.ticks[0], rec.ticks[1]
	if !warm.Warmup || warm.Point.Ops != 40 || measured.Warmup || measured.Point.Ops != 400 || measured.Point.Rate != 400 {
		t.Errorf("readings %+v, %+v: want the warm-up's 40 then the measured 400 operations", warm.Point, measured.Point)
	}
	// 300 of the 400 took 900 µs: the merged p99 is theirs, where the
	// average of the two generators' p99s would be 500 µs.
	if p99 := measured.Point.P99; p99 < 890 || p99 > 910 {
		t.Errorf("merged p99 %.0f µs, want ≈900 (from the merged histograms)", p99)
	}
	if measured.Clients != 6 {
		t.Errorf("the reading counts %d clients, want the cell's 6", measured.Clients)
	}
	// The slow generator reads slot 2; the fast one's window has moved on
	// past its slot 1 by then: slot 2 is shown, nothing again.
	slow = append(slow[1:], reading(t, 2, false, 300, 900))
	pt.seen(parts(fast[1:], slow))
	if len(rec.ticks) != 3 || rec.ticks[2].Point.Ops != 400 || rec.ticks[2].Elapsed != 2*time.Second {
		t.Errorf("after slot 2: %d readings, last %+v", len(rec.ticks), rec.ticks[len(rec.ticks)-1])
	}
	lines := strings.Count(out.String(), "2 load generators: ")
	if lines != 3 || !strings.Contains(out.String(), "warm-up, 2 load generators: ") || !strings.Contains(out.String(), "400.0 tps") {
		t.Errorf("per-second lines:\n%s\nwant one per slot shown, the warm-up's marked, 400.0 tps", out.String())
	}
}

// A generator's publisher never blocks the reading that hands it a tick,
// writes the newest readings only, and reports the store's refusal once,
// at the end, without failing anything.
func TestProgressPublisherKeepsTheNewest(t *testing.T) {
	var mu sync.Mutex
	var written [][]store.PartTick
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	p := publishProgress(ctx, func(ctx context.Context, ticks []store.PartTick) error {
		<-release // a slow store: every reading below comes while it writes
		mu.Lock()
		written = append(written, ticks)
		mu.Unlock()
		return errors.New("refused")
	})
	for slot := 1; slot <= 3*store.MaxPartTicks; slot++ {
		p.tick(slot, kinds.Tick{Point: result.SeriesPoint{Ops: int64(slot)}})
	}
	close(release)
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		last := written
		mu.Unlock()
		if n := len(last); n > 0 && last[n-1][len(last[n-1])-1].Slot == 3*store.MaxPartTicks {
			if got := len(last[n-1]); got != store.MaxPartTicks {
				t.Errorf("the last write holds %d readings, want the newest %d", got, store.MaxPartTicks)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the newest reading was never written: %v", last)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := p.stop(); err == nil || err.Error() != "refused" {
		t.Errorf("stop = %v, want the store's refusal", err)
	}
}
