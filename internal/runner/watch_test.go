package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// recordingWatcher writes down what the runner tells it.
type recordingWatcher struct{ events []string }

func (w *recordingWatcher) CellStarted(i int, c study.Cell) {
	w.events = append(w.events, fmt.Sprintf("start %d", i))
}
func (w *recordingWatcher) CellSkipped(i int) { w.events = append(w.events, fmt.Sprintf("skip %d", i)) }
func (w *recordingWatcher) Tick(t kinds.Tick) {
	phase := "tick"
	if t.Warmup {
		phase = "warm"
	}
	if n := len(w.events); n == 0 || w.events[n-1] != phase {
		w.events = append(w.events, phase)
	}
}
func (w *recordingWatcher) CellEnded(i int, run *result.Run, err error) {
	w.events = append(w.events, fmt.Sprintf("end %d %s", i, run.Status))
}

// The watcher hears each cell's start, its warm-up's and measured phase's
// ticks and its end, in order, and the cells --resume skips.
func TestWatcherHearsEachCell(t *testing.T) {
	behaveMu.Lock()
	behave = func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	behaveMu.Unlock()
	w := &study.Workload{Name: "fake", Kind: "fake-test", Clients: []study.ClientLevel{{N: 1}}}
	st := &study.Study{Name: "t", Warmup: 250 * time.Millisecond, Duration: 250 * time.Millisecond, Seed: 7, Repetitions: 2,
		Targets: []*study.Target{{Name: "f", URL: "fake://x"}}, Workloads: []*study.Workload{w}}
	cells, err := st.Plan(Catalog{})
	if err != nil || len(cells) != 2 {
		t.Fatalf("plan: %d cells, %v", len(cells), err)
	}
	rec := &recordingWatcher{}
	sink := &MemorySink{}
	r := New(st, Options{Sink: sink, Every: 100 * time.Millisecond, Watch: rec, Skip: map[string]bool{cells[0].Key(): true}})
	if err := r.Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rec.events, ", "), "skip 0, start 1, warm, tick, end 1 ok"; got != want {
		t.Errorf("the watcher heard %q, want %q", got, want)
	}
}
