package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// spyStore is the results store as a Sink, noting what the runner spills and
// what the run holds in memory when it is appended.
type spyStore struct {
	*store.Store
	mu       sync.Mutex
	spilled  map[int][]string // point → its histograms, as spilled
	enough   int              // once this many points spilled, close full
	full     chan struct{}
	appended *result.Run
	inMemory []result.SeriesPoint // the appended run's series, as the runner held it
}

func (s *spyStore) SpillIntervals(key string, point int, histograms []string) error {
	s.mu.Lock()
	s.spilled[point] = histograms
	if len(s.spilled) == s.enough {
		close(s.full)
	}
	s.mu.Unlock()
	return s.Store.SpillIntervals(key, point, histograms)
}

func (s *spyStore) AppendRun(r *result.Run) (int64, error) {
	s.appended = r
	s.inMemory = append([]result.SeriesPoint(nil), r.Series...)
	return s.Store.AppendRun(r)
}

// A run measuring into the store keeps no interval histogram in memory, and
// the run stored is the one it would have stored keeping them all: each
// second's histograms byte for byte as spilled. The run here is many short
// ticks long and interrupted, so the seconds it stores are only the spilled
// ones and the final reading.
func TestSpilledRunKeepsNoIntervalHistogramInMemoryAndStoresThemAll(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const points = 400
	spy := &spyStore{Store: st, spilled: map[int][]string{}, enough: points, full: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-spy.full:
		case <-time.After(time.Minute): // a runner that never spills fails below rather than measuring an hour
		case <-ctx.Done():
		}
		cancel()
	}()
	behaveMu.Lock()
	behave = func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(200 * time.Microsecond)
		return 0, nil
	}
	behaveMu.Unlock()
	w := study.Workload{Name: "fake", Kind: "fake-test", Clients: []study.ClientLevel{{N: 2}}}
	s := &study.Study{Name: "t", Duration: time.Hour, Seed: 7,
		Targets: []*study.Target{{Name: "f", URL: "fake://x"}}, Workloads: []*study.Workload{&w}}
	cells, err := s.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	err = New(s, Options{Sink: spy, Every: 2 * time.Millisecond}).Run(ctx, cells)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	r := spy.appended
	if r == nil || r.Status != result.StatusInterrupted || r.SpillKey == "" {
		t.Fatalf("appended run %+v", r)
	}
	if len(spy.spilled) < points {
		t.Fatalf("%d points spilled, want at least %d", len(spy.spilled), points)
	}
	// What a run that did not spill would store: the series as held, with
	// each spilled point's histograms in it.
	want := make([]result.SeriesPoint, len(spy.inMemory))
	withOps := 0
	for i, pt := range spy.inMemory {
		hs, spilled := spy.spilled[i]
		if spilled && len(hs) != len(pt.Hists) {
			t.Fatalf("point %d: %d histograms spilled for %d op types", i, len(hs), len(pt.Hists))
		}
		ivs := make([]result.IntervalOp, len(pt.Hists))
		for j, iv := range pt.Hists {
			if spilled {
				if iv.Histogram != "" {
					t.Fatalf("point %d op %s: its interval histogram is still in memory", i, iv.Name)
				}
				iv.Histogram = hs[j]
				if hs[j] == "" {
					t.Fatalf("point %d op %s: spilled an empty histogram", i, iv.Name)
				}
			}
			ivs[j] = iv
		}
		if pt.Ops > 0 {
			withOps++
		}
		pt.Hists = ivs
		want[i] = pt
	}
	if withOps < points/2 {
		t.Fatalf("only %d of %d points have operations", withOps, len(want))
	}
	got, err := st.Runs(store.Filter{IDs: []int64{r.ID}})
	if err != nil || len(got) != 1 {
		t.Fatalf("reading the run back: %d runs, %v", len(got), err)
	}
	if len(got[0].Series) != len(want) {
		t.Fatalf("stored %d points, the run held %d", len(got[0].Series), len(want))
	}
	for i := range want {
		// Floats and times round-trip through the store; the intervals must
		// come back exactly.
		if !reflect.DeepEqual(got[0].Series[i].Hists, want[i].Hists) {
			t.Fatalf("point %d stored as\n %#v\nwant\n %#v", i, got[0].Series[i].Hists, want[i].Hists)
		}
	}
}
