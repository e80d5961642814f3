package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// fakeDriver and fakeWorkload let the tests control exactly what one operation
// does, so the runner's measurement rules can be checked without a database.
type fakeDriver struct{}

func (fakeDriver) Name() string { return "fake" }
func (fakeDriver) Open(ctx context.Context, t driver.Target, o driver.Options) (driver.Client, error) {
	return driver.NewConnClient(func(context.Context) (driver.Conn, error) {
		if fakeDown.Load() {
			return nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
		}
		return fakeConn{}, nil
	}, false), nil
}

// fakeDown makes new sessions fail, as a server that is down refuses them.
var fakeDown atomic.Bool

type fakeConn struct{}

func (fakeConn) Close(context.Context) error { return nil }
func (fakeConn) Classify(err error) result.ErrorClass {
	var ce classErr
	if errors.As(err, &ce) {
		return ce.class
	}
	return result.ErrOther
}

type classErr struct{ class result.ErrorClass }

func (e classErr) Error() string { return string(e.class) }

// behaviour is what the current test wants an operation to do.
type behaviour func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error)

var (
	behaveMu sync.Mutex
	behave   behaviour
)

type fakeWorkload struct{}

func (fakeWorkload) Kind() string          { return "fake-test" }
func (fakeWorkload) Description() string   { return "test workload" }
func (fakeWorkload) Params() []params.Spec { return nil }
func (fakeWorkload) New(params.Values) (workload.Instance, error) {
	behaveMu.Lock()
	defer behaveMu.Unlock()
	return fakeInstance{op: behave}, nil
}

type fakeInstance struct{ op behaviour }

func (fakeInstance) Ops() []string                                      { return []string{"a", "b"} }
func (fakeInstance) Prepare(context.Context, workload.PrepareEnv) error { return nil }
func (f fakeInstance) NewWorker(context.Context, driver.Conn) (workload.Op, error) {
	return workload.Op(f.op), nil
}

func init() {
	driver.Register(fakeDriver{}, "fake://")
	workload.Register(workload.Plugin{Workload: fakeWorkload{}})
}

// runOne runs a one-cell study of the fake workload and returns its run.
func runOne(t *testing.T, ctx context.Context, op behaviour, w study.Workload, warmup, duration time.Duration) (*result.Run, error) {
	t.Helper()
	return runOneWith(t, ctx, op, w, warmup, duration, nil)
}

// runOneWith is runOne with the study adjusted by edit first.
func runOneWith(t *testing.T, ctx context.Context, op behaviour, w study.Workload, warmup, duration time.Duration, edit func(*study.Study)) (*result.Run, error) {
	t.Helper()
	return runOneOpts(t, ctx, op, w, warmup, duration, edit, nil)
}

// runOneOpts is runOneWith with the runner's options adjusted by opts too.
func runOneOpts(t *testing.T, ctx context.Context, op behaviour, w study.Workload, warmup, duration time.Duration, edit func(*study.Study), opts func(*Options)) (*result.Run, error) {
	t.Helper()
	behaveMu.Lock()
	behave = op
	behaveMu.Unlock()
	w.Name = "fake"
	if w.Kind == "" {
		w.Kind = "fake-test"
	}
	st := &study.Study{Name: "t", Warmup: warmup, Duration: duration, Seed: 7,
		Targets: []*study.Target{{Name: "f", URL: "fake://x"}}, Workloads: []*study.Workload{&w}}
	if edit != nil {
		edit(st)
	}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	opt := Options{Sink: sink, Every: 100 * time.Millisecond}
	if opts != nil {
		opts(&opt)
	}
	r := New(st, opt)
	err = r.Run(ctx, cells)
	if len(sink.Runs) != 1 {
		t.Fatalf("want 1 stored run, got %d (err %v)", len(sink.Runs), err)
	}
	return sink.Runs[0], err
}

func TestWarmupIsNotMeasured(t *testing.T) {
	var total atomic.Int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		total.Add(1)
		time.Sleep(5 * time.Millisecond)
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 400*time.Millisecond, 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	got, all := run.Summary.Transactions, total.Load()
	// Half the time is warm-up: the measured count must be well below everything executed.
	if got <= 0 || float64(got) > 0.7*float64(all) {
		t.Fatalf("measured %d of %d operations: warm-up leaked into the executor", got, all)
	}
	if run.Status != result.StatusOK || run.Duration < 400*time.Millisecond {
		t.Fatalf("status %s duration %v", run.Status, run.Duration)
	}
	if len(run.Series) < 3 {
		t.Fatalf("want per-tick series, got %d points", len(run.Series))
	}
	var sum int64
	for _, p := range run.Series {
		sum += p.Ops
	}
	if sum != got {
		t.Fatalf("series ops %d != summary %d", sum, got)
	}
	h, err := hist.Decode(run.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != got || h.ValueAtQuantile(50) < 5000 {
		t.Fatalf("histogram count %d (want %d), p50 %d µs (want ≥ 5000)", h.TotalCount(), got, h.ValueAtQuantile(50))
	}
}

// In rate mode a stall must show in the latency of every operation scheduled
// during it (latency from the intended start), not in one slow sample.
func TestRateModeHasNoCoordinatedOmission(t *testing.T) {
	var n atomic.Int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		if n.Add(1) == 100 {
			time.Sleep(300 * time.Millisecond)
		}
		return 0, nil
	}
	// The stall is a quarter of the run's 100 ms ticks: dead time far past the
	// default max_dead_ratio, which is not what this test is about.
	run, err := runOneWith(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}, Rate: 500}, 0, 1200*time.Millisecond, anyDeadTime)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hist.Decode(run.Ops[0].Histogram)
	slow := h.TotalCount() - countBelow(h, 50_000)
	// About 500/s × 0.3 s = 150 operations were due during the stall.
	if slow < 50 {
		t.Fatalf("only %d operations slower than 50 ms: latency is not measured from the schedule", slow)
	}
	if run.Summary.LagMax < 200_000 {
		t.Fatalf("schedule lag max %.0f µs, want ≥ 200 ms", run.Summary.LagMax)
	}
	if run.Summary.TargetRate != 500 {
		t.Fatalf("target rate not recorded: %v", run.Summary.TargetRate)
	}
}

// anyDeadTime lets a run stall as long as it likes without being failed.
func anyDeadTime(st *study.Study) {
	all := 1.0
	st.MaxDeadRatio = &all
}

// countBelow counts recorded values below us microseconds.
func countBelow(h *hdr.Histogram, us int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.To <= us {
			n += b.Count
		}
	}
	return n
}

func TestLatencyLimitSkipsLateStarts(t *testing.T) {
	var n atomic.Int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		if n.Add(1) == 50 {
			time.Sleep(300 * time.Millisecond)
		}
		return 0, nil
	}
	run, err := runOneWith(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}, Rate: 500, LatencyLimit: 20 * time.Millisecond}, 0, time.Second, anyDeadTime)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Skipped < 50 {
		t.Fatalf("skipped %d, want the ~150 starts due during the stall", run.Summary.Skipped)
	}
}

// A retried transaction must see the same random choices, as in pgbench.
func TestRetriesReplayRandomChoices(t *testing.T) {
	var mu sync.Mutex
	var tries int
	var first, mismatches int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		v := rng.Int64()
		mu.Lock()
		defer mu.Unlock()
		tries++
		if tries%3 == 1 {
			first = v
		} else if v != first {
			mismatches++
		}
		if tries%3 != 0 {
			return 1, classErr{result.ErrSerialization}
		}
		return 1, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}, MaxTries: 3}, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if mismatches != 0 {
		t.Fatalf("%d retries saw different random values", mismatches)
	}
	s := run.Summary
	// The one client may be caught mid-retry when the run ends: pgbench then counts
	// the transaction as failed, and so do we.
	if s.Transactions == 0 || s.Failed > 1 || s.Retried < s.Transactions || s.Retried > s.Transactions+s.Failed || s.Retries < 2*s.Transactions {
		t.Fatalf("transactions %d failed %d retried %d retries %d", s.Transactions, s.Failed, s.Retried, s.Retries)
	}
	if run.Ops[1].Count != s.Transactions || run.Ops[0].Count != 0 {
		t.Fatalf("op counts %d/%d", run.Ops[0].Count, run.Ops[1].Count)
	}
}

func TestErrorsAreCountedByClassAfterTries(t *testing.T) {
	var n atomic.Int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		switch n.Add(1) % 4 {
		case 0:
			return 0, classErr{result.ErrDeadlock} // retryable, but max tries is 1
		case 1:
			return 1, classErr{result.ErrConstraint}
		}
		return 0, nil
	}
	// Half the operations fail: at the default max_error_ratio (0.5) the run
	// might count as failed, which is not what this test is about.
	all := 1.0
	run, err := runOneWith(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}}, 0, 200*time.Millisecond,
		func(st *study.Study) { st.MaxErrorRatio = &all })
	if err != nil {
		t.Fatal(err)
	}
	dl, cons := run.Ops[0].Errors[result.ErrDeadlock], run.Ops[1].Errors[result.ErrConstraint]
	if dl == 0 || cons == 0 || run.Summary.Failed != dl+cons {
		t.Fatalf("deadlocks %d constraint %d failed %d", dl, cons, run.Summary.Failed)
	}
	if run.Summary.Retried != 0 {
		t.Fatalf("retried %d with max tries 1", run.Summary.Retried)
	}
	if ratio := float64(run.Summary.Transactions) / float64(run.Summary.Failed); ratio < 0.8 || ratio > 1.25 {
		t.Fatalf("2 of 4 operations succeed, got %d ok / %d failed", run.Summary.Transactions, run.Summary.Failed)
	}
}

func TestInterruptStopsWithinASecondAndMarksTheRun(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	run, err := runOne(t, ctx, op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, time.Minute)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if el := time.Since(start); el > testenv.StopDeadline { // the run lasts a minute
		t.Fatalf("took %v to stop", el)
	}
	if run.Status != result.StatusInterrupted || run.Summary.Transactions == 0 {
		t.Fatalf("status %s, %d transactions kept", run.Status, run.Summary.Transactions)
	}
}

// Memory must not grow with run length: performing and recording one operation
// allocates nothing once the worker is set up (histograms are fixed-size).
func TestRecordingAnOperationDoesNotAllocate(t *testing.T) {
	rec := hist.NewRecorder(2)
	pcg := rand.NewPCG(1, 2)
	w := &worker{conn: fakeConn{}, rec: rec, pcg: pcg, rng: rand.New(pcg),
		op: func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
			rng.Int64()
			return 1, nil
		}}
	m := &executor{}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(10000, func() { m.once(ctx, ctx, w, time.Now(), 3) })
	if allocs != 0 {
		t.Fatalf("%.1f allocations per operation; memory would grow with run length", allocs)
	}
	col := hist.NewCollector(2, []*hist.Recorder{rec})
	if got := col.Tick()[1].Count; got < 10000 {
		t.Fatalf("recorded %d operations", got)
	}
}

// interruptConn is a connection the runner can interrupt (driver.Interrupter);
// its operation blocks until then, like a statement waiting on a lock.
type interruptConn struct {
	fakeConn
	woken     chan struct{}
	once      sync.Once
	ran       atomic.Bool // an operation ran on it (the runner's own admin connection runs none)
	detached  atomic.Bool // the operation saw a context without cancellation
	interrupt atomic.Int32
}

func (c *interruptConn) Interrupt() {
	c.interrupt.Add(1)
	c.once.Do(func() { close(c.woken) })
}

type interruptDriver struct{ conns chan *interruptConn }

func (interruptDriver) Name() string { return "fake-interruptible" }
func (d interruptDriver) Open(ctx context.Context, t driver.Target, o driver.Options) (driver.Client, error) {
	return driver.NewConnClient(func(context.Context) (driver.Conn, error) {
		c := &interruptConn{woken: make(chan struct{})}
		d.conns <- c
		return c, nil
	}, false), nil
}

type hangWorkload struct{ fakeWorkload }

func (hangWorkload) Kind() string { return "fake-hang" }
func (hangWorkload) New(params.Values) (workload.Instance, error) {
	return hangInstance{}, nil
}

type hangInstance struct{ fakeInstance }

func (hangInstance) NewWorker(_ context.Context, conn driver.Conn) (workload.Op, error) {
	c := conn.(*interruptConn)
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		c.ran.Store(true)
		c.detached.Store(ctx.Done() == nil)
		select {
		case <-c.woken:
		case <-time.After(10 * time.Second): // never interrupted: the test fails on time, not hangs
		}
		return 0, classErr{result.ErrConnection}
	}, nil
}

var interruptConns = make(chan *interruptConn, 16)

func init() {
	driver.Register(interruptDriver{conns: interruptConns}, "fakeint://")
	workload.Register(workload.Plugin{Workload: hangWorkload{}})
}

// With connections that can be interrupted, operations run under a context the
// driver cannot see cancelled (no per-statement watch), and a cancelled run
// interrupts every connection instead: a client hung in a statement still stops.
func TestCancelledRunInterruptsHungConnections(t *testing.T) {
	w := study.Workload{Name: "hang", Kind: "fake-hang", Clients: []study.ClientLevel{{N: 2}}}
	st := &study.Study{Name: "t", Duration: time.Minute, Seed: 7,
		Targets: []*study.Target{{Name: "f", URL: "fakeint://x"}}, Workloads: []*study.Workload{&w}}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	err = New(st, Options{Sink: sink, Every: 100 * time.Millisecond}).Run(ctx, cells)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if el := time.Since(start); el > testenv.StopDeadline {
		t.Fatalf("took %v to stop a hung run", el)
	}
	close(interruptConns)
	n := 0
	for c := range interruptConns {
		if !c.ran.Load() {
			continue
		}
		n++
		if c.interrupt.Load() == 0 {
			t.Errorf("connection %d was never interrupted", n)
		}
		if !c.detached.Load() {
			t.Errorf("connection %d: the operation's context could be cancelled", n)
		}
	}
	if n != 2 {
		t.Fatalf("operations ran on %d connections, want 2", n)
	}
	if len(sink.Runs) != 1 || sink.Runs[0].Status != result.StatusInterrupted {
		t.Fatalf("stored %d runs, want one interrupted run", len(sink.Runs))
	}
}
