package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// keyingConn can be interrupted, so the runner detaches its operations'
// context from the run's (the path real drivers take).
type keyingConn struct{ fakeConn }

func (keyingConn) Interrupt() {}

type keyingDriver struct{}

func (keyingDriver) Name() string { return "fake-keying" }
func (keyingDriver) Open(context.Context, driver.Target, driver.Options) (driver.Client, error) {
	return driver.NewConnClient(func(context.Context) (driver.Conn, error) { return keyingConn{}, nil }, false), nil
}

// keyingWorkload's clients each complete one operation at once, then key
// the next for 40 s before sending it (TPC-C's keying time, longer).
type keyingWorkload struct{ fakeWorkload }

func (keyingWorkload) Kind() string { return "fake-keying" }
func (keyingWorkload) New(params.Values) (workload.Instance, error) {
	return keyingInstance{}, nil
}

type keyingInstance struct{ fakeInstance }

func (keyingInstance) Shape() workload.Shape { return workload.Shape{Waits: true} }

// keyingStarted counts the keying waits begun; the Ctrl-C test waits for one.
var keyingStarted atomic.Int64

func (keyingInstance) NewWorker(context.Context, driver.Conn) (workload.Op, error) {
	first := true
	return func(ctx context.Context, _ *rand.Rand, _ workload.Requests) (int, error) {
		if first {
			first = false
			return 0, nil
		}
		keyingStarted.Add(1)
		if err := workload.Wait(ctx, 2*testenv.StopDeadline); err != nil { // not cut short: the test fails on time, not hangs
			return 1, err
		}
		return 1, nil
	}, nil
}

func init() {
	driver.Register(keyingDriver{}, "fakekeying://")
	workload.Register(workload.Plugin{Workload: keyingWorkload{}})
}

func runKeying(t *testing.T, ctx context.Context, duration time.Duration) (*result.Run, error, time.Duration) {
	t.Helper()
	w := study.Workload{Name: "keying", Kind: "fake-keying", Clients: []study.ClientLevel{{N: 2}}}
	st := &study.Study{Name: "t", Duration: duration, Seed: 7,
		Targets: []*study.Target{{Name: "f", URL: "fakekeying://x"}}, Workloads: []*study.Workload{&w}}
	cells, err := st.Plan(Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &MemorySink{}
	start := time.Now()
	err = New(st, Options{Sink: sink, Every: 100 * time.Millisecond}).Run(ctx, cells)
	took := time.Since(start)
	if len(sink.Runs) != 1 {
		t.Fatalf("stored %d runs, want 1 (err %v)", len(sink.Runs), err)
	}
	return sink.Runs[0], err, took
}

// checkNothingFailed: the two operations done before the keying are the
// run's; the two still keying when it stopped are neither done nor failed.
func checkNothingFailed(t *testing.T, run *result.Run) {
	t.Helper()
	var done, failed int64
	for _, o := range run.Ops {
		done += o.Count
		for _, n := range o.Errors {
			failed += n
		}
	}
	if done != 2 || failed != 0 {
		t.Fatalf("%d operations done and %d failed, want 2 done (one a client) and none failed: the waits the stop cut short are no operations", done, failed)
	}
}

// An operation waiting before it sends (keying time) when the measured phase
// ends is cut short: the run ends at its duration, not after the wait, and
// the operation is neither done nor failed.
func TestWaitBeforeSendingEndsWithThePhase(t *testing.T) {
	run, err, took := runKeying(t, context.Background(), 300*time.Millisecond)
	if err != nil {
		t.Fatalf("run: %v (%s)", err, run.Error)
	}
	if took > testenv.StopDeadline {
		t.Fatalf("a 300 ms run took %v: its clients' waits outlived the phase", took)
	}
	if run.Status != result.StatusOK {
		t.Fatalf("status %s (%s), want ok", run.Status, run.Error)
	}
	checkNothingFailed(t, run)
}

// Ctrl-C during a keying wait stops the run at once, as in a statement.
func TestCtrlCDuringAWaitStops(t *testing.T) {
	keyingStarted.Store(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for keyingStarted.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	run, err, took := runKeying(t, ctx, time.Hour)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if took > testenv.StopDeadline {
		t.Fatalf("Ctrl-C during the keying wait took %v to stop the run", took)
	}
	if run.Status != result.StatusInterrupted {
		t.Fatalf("status %s, want interrupted", run.Status)
	}
	checkNothingFailed(t, run)
}
