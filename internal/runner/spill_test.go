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
	mu      sync.Mutex
	spilled []result.SeriesPoint // as spilled, in index order
	// Once enough points are spilled, enoughOps of them with operations,
	// full is closed: the test waits for points with content, however
	// slowly a busy host (or the race detector) lets operations complete.
	enough, enoughOps int
	withOps           int
	full              chan struct{}
	appended          *result.Run
	inMemory          []result.SeriesPoint // the appended run's series, as the runner held it
}

func (s *spyStore) SpillPoint(key string, index int, p result.SeriesPoint) error {
	s.mu.Lock()
	if index != len(s.spilled) {
		s.mu.Unlock()
		return errors.New("spilled out of order")
	}
	s.spilled = append(s.spilled, p)
	wasFull := len(s.spilled)-1 >= s.enough && s.withOps >= s.enoughOps
	if p.Ops > 0 {
		s.withOps++
	}
	if !wasFull && len(s.spilled) >= s.enough && s.withOps >= s.enoughOps {
		close(s.full)
	}
	s.mu.Unlock()
	return s.Store.SpillPoint(key, index, p)
}

func (s *spyStore) AppendRun(r *result.Run) (int64, error) {
	s.appended = r
	s.inMemory = append([]result.SeriesPoint(nil), r.Series...)
	return s.Store.AppendRun(r)
}

// A run measuring into the store keeps only its last few points in memory
// however many seconds it measured, and the run stored is the one it would
// have stored keeping them all: every point as the runner made it, the
// interval histograms byte for byte, and the dead time the summary computed
// second by second equals the one of the whole stored series. The run here is
// many short ticks long, fails its operations in bursts (so that it has dead
// seconds to count) and is interrupted.
func TestSpilledRunHoldsFewPointsAndStoresThemAll(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const points = 400
	spy := &spyStore{Store: st, enough: points, enoughOps: points / 4, full: make(chan struct{})}
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
	began := time.Now()
	behaveMu.Lock()
	behave = func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(200 * time.Microsecond)
		if time.Since(began)/(15*time.Millisecond)%4 == 0 {
			return 0, classErr{result.ErrOther}
		}
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
	err = New(s, Options{Sink: spy, Every: 2 * time.Millisecond, MaxDeadRatio: ptr(1), MaxErrorRatio: ptr(1)}).Run(ctx, cells)
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
	if r.Spilled.Points != len(spy.spilled) {
		t.Fatalf("the run's tally folded %d points, %d were spilled", r.Spilled.Points, len(spy.spilled))
	}
	// The few after the last reading's second, and the final reading's.
	if len(spy.inMemory) > points/10 {
		t.Fatalf("the run held %d points in memory when it was stored, after spilling %d", len(spy.inMemory), len(spy.spilled))
	}
	want := append(append([]result.SeriesPoint(nil), spy.spilled...), spy.inMemory...)
	withOps := 0
	for _, pt := range want {
		if pt.Ops > 0 {
			withOps++
		}
	}
	if withOps < points/4 {
		t.Fatalf("only %d of %d points have operations", withOps, len(want))
	}
	got, err := st.Runs(store.Filter{IDs: []int64{r.ID}})
	if err != nil || len(got) != 1 {
		t.Fatalf("reading the run back: %d runs, %v", len(got), err)
	}
	stored := got[0]
	if len(stored.Series) != len(want) {
		t.Fatalf("stored %d points, the run made %d", len(stored.Series), len(want))
	}
	for i := range want {
		// Floats round-trip through the store; the seconds, counts and
		// intervals must come back exactly.
		g, w := stored.Series[i], want[i]
		if g.Second != w.Second || g.Ops != w.Ops || g.Errors != w.Errors || !reflect.DeepEqual(g.Hists, w.Hists) {
			t.Fatalf("point %d stored as\n %#v\nwant\n %#v", i, g, w)
		}
	}
	// The stored series has no Missed marks nor CPU waits: compare what
	// does not depend on them.
	whole := result.DeadSecondsOf(want, r.Summary.MeasuredSeconds, quietSeconds(r.Summary, false))
	if r.Summary.DeadSeconds == 0 {
		t.Fatal("no dead second in a run that failed every operation a quarter of the time: the test measured nothing")
	}
	if s := r.Summary; s.DeadSeconds != whole.Seconds || s.SilentSeconds != whole.Silent || s.StarvedSeconds != whole.Starved || !reflect.DeepEqual(s.DeadSpans, whole.Spans) {
		t.Fatalf("dead time tallied as the run measured: %d s (%d silent, %d starved) %v\nof the whole series: %d s (%d silent, %d starved) %v",
			s.DeadSeconds, s.SilentSeconds, s.StarvedSeconds, s.DeadSpans, whole.Seconds, whole.Silent, whole.Starved, whole.Spans)
	}
}

// A long run's flags and outage judgement come out the same whether its
// series was held whole to the end or mostly folded into the run's tally as
// its seconds completed (any split the runner may have made), and the tally
// stays the same size however many seconds it folds.
func TestTallyGivesTheFlagsAndOutagesOfTheWholeSeries(t *testing.T) {
	const seconds = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	series := make([]result.SeriesPoint, 0, seconds+1)
	for i := range seconds {
		pt := result.SeriesPoint{Second: i + 1, Ops: 100, Rate: 100}
		switch phase := i % 1000; {
		case phase >= 100 && phase < 110: // an outage: errors only
			pt.Ops, pt.Errors = 0, 5
		case phase >= 300 && phase < 303: // a frozen host: seconds not read
			pt.Ops, pt.Missed = 0, true
		case phase >= 500 && phase < 502: // a starved one
			pt.Ops, pt.CPUWait = 0, 0.5
		case rng.IntN(50) == 0: // a silent second now and then
			pt.Ops = 0
		}
		series = append(series, pt)
	}
	series = append(series, result.SeriesPoint{Second: seconds + 1, Ops: 3, Rate: 3000}) // after the measured phase
	judge := func(r *result.Run) (result.Summary, []result.Flag, string, string) {
		r.Summary.MeasuredSeconds = seconds
		r.Summary.Transactions, r.Summary.Failed = 1e6, 1e4
		setDead(&r.Summary, r.DeadTime(quietSeconds(r.Summary, false)))
		r.Duration = seconds * time.Second
		return r.Summary, flags(r, r.Duration), limits{MaxErrorRatio: 0.5, MaxDeadRatio: 0.001}.judge(r), OutageText(r)
	}
	held := &result.Run{Series: series}
	wantSum, wantFlags, wantJudge, wantOutage := judge(held)
	if wantSum.DeadSeconds == 0 || len(wantFlags) == 0 || wantJudge == "" {
		t.Fatalf("test setup: the whole series has %d dead seconds, flags %v, judgement %q", wantSum.DeadSeconds, wantFlags, wantJudge)
	}
	var tallySize int
	for _, split := range []int{1, 99, 100, 105, 110, 5000, seconds - 1, seconds} {
		r := &result.Run{}
		for _, pt := range series[:split] {
			r.Spilled.Add(pt)
		}
		r.Series = series[split:]
		sum, flags, judgement, outage := judge(r)
		if !reflect.DeepEqual(sum, wantSum) || !reflect.DeepEqual(flags, wantFlags) || judgement != wantJudge || outage != wantOutage {
			t.Fatalf("split after %d points:\n summary %+v\n flags %v\n judged %q\n outage %q\nwhole series:\n summary %+v\n flags %v\n judged %q\n outage %q",
				split, sum, flags, judgement, outage, wantSum, wantFlags, wantJudge, wantOutage)
		}
		if split == seconds {
			tallySize = len(r.Spilled.Dead(false).Spans) + len(r.Spilled.Dead(true).Spans)
		}
	}
	// What the tally holds beyond its counters is one span per run of dead
	// seconds: here at most the outage, freeze, starvation and silent
	// seconds of each thousand, whatever the number of points.
	if limit := 4*seconds/1000 + seconds/50*2; tallySize > limit {
		t.Fatalf("the tally of %d points holds %d spans, more than the %d runs of dead seconds there can be", seconds, tallySize, limit)
	}
}
