package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// A run whose every operation failed is a failed run, and it keeps the
// server's own error text (first per class, capped).
func TestEveryOperationFailedIsAFailedRunWithTheServerText(t *testing.T) {
	text := `ERROR: relation "pgbench_accounts" does not exist (SQLSTATE 42P01) ` + strings.Repeat("x", 2000)
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, errors.New(text)
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, 300*time.Millisecond)
	if err == nil || run.Status != result.StatusFailed {
		t.Fatalf("status %s, err %v: want a failed run", run.Status, err)
	}
	if !strings.Contains(run.Error, "every operation failed") || !strings.Contains(run.Error, `relation "pgbench_accounts" does not exist`) {
		t.Fatalf("error does not show the server's text: %s", run.Error)
	}
	// The study's own error, often the last line a log keeps, says why too.
	if msg := err.Error(); !strings.Contains(msg, "1 of 1 cells failed: cell 1 (") || !strings.Contains(msg, "): every operation failed") || len(msg) > 400 {
		t.Fatalf("the study's error does not say which cell failed and why, in a line: %s", msg)
	}
	first := run.Summary.FirstErrors[result.ErrOther]
	if !strings.HasPrefix(first, "ERROR: relation") || len(first) > result.MaxErrorText+40 {
		t.Fatalf("first error not kept or not capped (%d bytes): %.80s", len(first), first)
	}
	if run.Summary.Failed == 0 || len(run.Ops) == 0 {
		t.Fatalf("the failed operations were not kept: %+v", run.Summary)
	}
}

// A server down for part of the run: reconnects and dead seconds are counted,
// the first connection error is kept, and past max_dead_ratio the run is
// failed; below it the run stands, with its outage recorded.
func TestOutageCountsReconnectsAndDeadSeconds(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		if fakeDown.Load() {
			return 0, classErr{result.ErrConnection}
		}
		return 0, nil
	}
	for _, tc := range []struct {
		name     string
		maxDead  float64
		wantFail bool
	}{{"past the threshold", 0.1, true}, {"under the threshold", 0.9, false}} {
		t.Run(tc.name, func(t *testing.T) {
			// Ticks are 100 ms here: down from 0.5 s to 1.2 s of 2 s.
			time.AfterFunc(500*time.Millisecond, func() { fakeDown.Store(true) })
			time.AfterFunc(1200*time.Millisecond, func() { fakeDown.Store(false) })
			defer fakeDown.Store(false)
			run, err := runOneWith(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, 2*time.Second,
				func(st *study.Study) { st.MaxDeadRatio = &tc.maxDead })
			s := run.Summary
			if s.Reconnects != 2 || s.ReconnectAttempts <= s.Reconnects {
				t.Errorf("reconnects %d in %d attempts, want 2 in more", s.Reconnects, s.ReconnectAttempts)
			}
			if s.DeadSeconds < 5 || s.DeadSeconds > 8 || len(s.DeadSpans) != 1 {
				t.Errorf("dead ticks %d %v, want one span of about 7", s.DeadSeconds, s.DeadSpans)
			}
			if !strings.Contains(s.FirstErrors[result.ErrConnection], "connection") {
				t.Errorf("first connection error not kept: %v", s.FirstErrors)
			}
			if !strings.Contains(s.ReconnectError, "connection refused") {
				t.Errorf("the failed reconnect's error not kept: %q", s.ReconnectError)
			}
			if tc.wantFail {
				if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "max_dead_ratio") {
					t.Fatalf("status %s, error %q: want failed past max_dead_ratio", run.Status, run.Error)
				}
			} else if err != nil || run.Status != result.StatusOK {
				t.Fatalf("status %s, err %v: want ok under the threshold", run.Status, err)
			}
			if s.Transactions == 0 || len(run.Series) < 15 {
				t.Fatalf("measurements lost: %d transactions, %d points", s.Transactions, len(run.Series))
			}
		})
	}
}

// Ctrl-C during the warm-up: the run is marked interrupted with nothing
// measured, instead of numbers over the instant after the warm-up.
func TestInterruptDuringWarmupMeasuresNothing(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(100 * time.Microsecond)
		return 0, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	run, err := runOne(t, ctx, op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, time.Minute, time.Minute)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if run.Status != result.StatusInterrupted || run.Error != "interrupted during the warm-up: nothing was measured" {
		t.Fatalf("status %s, error %q", run.Status, run.Error)
	}
	if run.Summary.Transactions != 0 || run.Summary.Throughput != 0 || len(run.Ops) != 0 || len(run.Series) != 0 || run.Duration != 0 {
		t.Fatalf("numbers from a run that measured nothing: %+v, %d ops, %v", run.Summary, len(run.Ops), run.Duration)
	}
}

// Past max_error_ratio a run is failed, naming the share and the threshold;
// the --max-error-ratio option overrides the study.
func TestErrorShareThreshold(t *testing.T) {
	var n atomic.Int64
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(200 * time.Microsecond)
		if n.Add(1)%5 != 0 { // 4 of 5 fail
			return 0, classErr{result.ErrConstraint}
		}
		return 0, nil
	}
	run, err := runOne(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}}, 0, 300*time.Millisecond)
	if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "> max_error_ratio 50.0 %") {
		t.Fatalf("status %s, error %q: want failed past the default max_error_ratio", run.Status, run.Error)
	}
	lenient := 0.9
	run, err = runOneWith(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 1}}}, 0, 300*time.Millisecond,
		func(st *study.Study) { st.MaxErrorRatio = &lenient })
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("status %s, err %v (%s): want ok at max_error_ratio 0.9", run.Status, err, run.Error)
	}
}
