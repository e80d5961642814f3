package runner

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// The summary keeps counters' growth across a reset, gauges' mean and max,
// waits' shares, and at most MaxViewBuckets buckets however long the run.
func TestViewSummaryIsBoundedAndSums(t *testing.T) {
	v := newViewSummary(time.Second)
	t0 := time.Unix(1000, 0)
	const samples = 1000
	for i := range samples {
		c := float64(10 * i)
		if i >= 500 {
			c = float64(10 * (i - 500)) // reset at sample 500: grew by 0 there
		}
		waits := map[string]int{"CPU": 1}
		if i%2 == 0 {
			waits["IO:WALSync"] = 3
		}
		v.add(result.EngineSample{At: t0.Add(time.Duration(i) * time.Second),
			Counters: map[string]float64{"c": c}, Gauges: map[string]float64{"g": float64(i % 10)}, Waits: waits})
	}
	got := v.view(result.EngineMetricUnit{"c": "bytes"})
	if got.Samples != samples || got.Seconds != samples-1 {
		t.Fatalf("samples %d over %v s", got.Samples, got.Seconds)
	}
	if len(got.Counters) != 1 || got.Counters[0].Delta != 10*499+10*499 || got.Counters[0].Unit != "bytes" {
		t.Fatalf("counters %+v", got.Counters)
	}
	if len(got.Gauges) != 1 || got.Gauges[0].Mean != 4.5 || got.Gauges[0].Max != 9 {
		t.Fatalf("gauges %+v", got.Gauges)
	}
	if got.Active != samples+3*samples/2 || got.Waits[0].Name != "IO:WALSync" {
		t.Fatalf("waits %+v of %d", got.Waits, got.Active)
	}
	if share := got.Share("IO:WALSync"); share != 0.6 {
		t.Fatalf("IO:WALSync share %v, want 1500/2500", share)
	}
	if n := len(got.Buckets); n == 0 || n > result.MaxViewBuckets {
		t.Fatalf("%d buckets", n)
	}
	var total int64
	for _, b := range got.Buckets {
		for _, n := range b.Waits {
			total += n
		}
	}
	if total != got.Active || got.Buckets[len(got.Buckets)-1].To < got.Seconds {
		t.Fatalf("buckets hold %d of %d samples, end at %v", total, got.Active, got.Buckets[len(got.Buckets)-1].To)
	}
}

// blockingSampler answers its first sample at once and then blocks each
// sample until its context ends, as a server that stopped answering would.
type blockingSampler struct {
	samples atomic.Int64
	closed  atomic.Bool
}

func (b *blockingSampler) Sample(ctx context.Context) (result.EngineSample, error) {
	if b.samples.Add(1) == 1 {
		return result.EngineSample{At: time.Now(), Waits: map[string]int{"CPU": 1}}, nil
	}
	<-ctx.Done()
	return result.EngineSample{}, ctx.Err()
}
func (b *blockingSampler) Unavailable() []string          { return []string{"something: GRANT it"} }
func (b *blockingSampler) Units() result.EngineMetricUnit { return nil }
func (b *blockingSampler) Close(context.Context) error {
	b.closed.Store(true)
	return nil
}

// Cancelling the run (Ctrl-C) ends sampling within a second even while a
// sample hangs, closes the sampler and keeps what was sampled.
func TestServerViewStopsOnCancel(t *testing.T) {
	smp := &blockingSampler{}
	v := &serverView{smp: smp, interval: 100 * time.Millisecond, sum: newViewSummary(100 * time.Millisecond)}
	ctx, cancel := context.WithCancel(context.Background())
	v.start(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for smp.samples.Load() < 2 { // the second sample hangs
		if time.Now().After(deadline) {
			t.Fatal("the sampler never took its second sample")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	done := make(chan struct{})
	run := &result.Run{}
	go func() { v.finish(ctx, run, io.Discard); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("finish did not return within a second of the cancel")
	}
	if !smp.closed.Load() || run.ServerView == nil || run.ServerView.Samples != 1 || run.ServerView.Error != "" {
		t.Fatalf("closed %v, view %+v", smp.closed.Load(), run.ServerView)
	}
	if len(run.ServerView.Unavailable) != 1 {
		t.Fatalf("unavailable %q", run.ServerView.Unavailable)
	}
}
