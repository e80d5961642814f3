package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// inProcDriver is the fake driver as an engine inside fairbench's process
// (as SQLite is).
type inProcDriver struct{ fakeDriver }

func (inProcDriver) Name() string    { return "fakeinproc" }
func (inProcDriver) InProcess() bool { return true }

func init() { driver.Register(inProcDriver{}, "fakeinproc://") }

// quietHost reads as a host where fairbench never waits for a CPU.
func quietHost() envinfo.Load { return envinfo.Load{WaitKnown: true, HostKnown: true} }

// busyHost reads as a host where fairbench's threads wait for a CPU all the
// time (a second per second).
func busyHost() func() envinfo.Load {
	t0 := time.Now()
	return func() envinfo.Load { return envinfo.Load{Wait: time.Since(t0), WaitKnown: true, HostKnown: true} }
}

// stallingWriter blocks the first progress line written to it for stall, as
// a frozen or starved host stops fairbench's ticker from reading its seconds.
type stallingWriter struct {
	stall time.Duration
	once  sync.Once
}

func (w *stallingWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "progress:") {
		w.once.Do(func() { time.Sleep(w.stall) })
	}
	return len(p), nil
}

func flagKinds(fs []result.Flag) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		m[f.Kind]++
	}
	return m
}

// Seconds fairbench did not read (its ticker starved, no operation failed)
// are in the series as dead seconds, and the run is flagged "host busy",
// not failed, though they pass max_dead_ratio (3 or more of 20 ticks > 10 %).
func TestStalledClientSecondsAreDeadAndFlaggedNotFailed(t *testing.T) {
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	w := &stallingWriter{stall: 450 * time.Millisecond} // ticks are 100 ms here
	run, err := runOneOpts(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, 2*time.Second, nil,
		func(o *Options) { o.Progress, o.readLoad = w, quietHost })
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("status %s, err %v: want ok, flagged", run.Status, err)
	}
	s := run.Summary
	if s.MeasuredSeconds != 20 || len(run.Series) < 20 {
		t.Fatalf("measured %d of %d points, want 20 (every tick of the measured phase)", s.MeasuredSeconds, len(run.Series))
	}
	missed := 0
	for i, p := range run.Series[:20] {
		if p.Missed {
			missed++
			if p.Ops != 0 || p.Errors != 0 {
				t.Errorf("missed point %d holds numbers: %+v", i, p)
			}
		}
	}
	if missed < 3 || s.DeadSeconds < missed || s.StarvedSeconds < missed {
		t.Fatalf("%d missed points, %d dead, %d starved: the seconds not read must count as dead, starved", missed, s.DeadSeconds, s.StarvedSeconds)
	}
	if flagKinds(s.Flags)[result.FlagHostBusy] == 0 {
		t.Fatalf("not flagged host busy: %+v", s.Flags)
	}
	if line := OutageText(run); !strings.Contains(line, "of 20 (") || !strings.Contains(line, "flagged, not an outage") {
		t.Errorf("outage line: %s", line)
	}
}

// A stretch without a completed operation and without an error: from a
// server elsewhere on a quiet host, an outage (failed past max_dead_ratio);
// while fairbench waited for a CPU, or from an engine inside fairbench's
// process, the host held the run up (flagged, stored ok). Errors in the dead
// seconds fail the run on a busy host too.
func TestSilentDeadSecondsFailUnlessTheHostHeldThemUp(t *testing.T) {
	var hang, fail atomic.Bool
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		time.Sleep(time.Millisecond)
		if fail.Load() {
			time.Sleep(50 * time.Millisecond)
			return 0, classErr{result.ErrTimeout}
		}
		for hang.Load() {
			time.Sleep(5 * time.Millisecond)
		}
		return 0, nil
	}
	for _, tc := range []struct {
		name     string
		url      string
		load     func() func() envinfo.Load
		errors   bool
		wantFail bool
		wantFlag string
	}{
		{"server, quiet host", "fake://x", func() func() envinfo.Load { return quietHost }, false, true, ""},
		{"server, client starved", "fake://x", busyHost, false, false, result.FlagHostBusy},
		{"engine in process", "fakeinproc://x", func() func() envinfo.Load { return quietHost }, false, false, result.FlagStalled},
		{"errors, client starved", "fake://x", busyHost, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Ticks are 100 ms here: nothing completes from 0.5 s to 1.2 s of 2 s.
			stuck := &hang
			if tc.errors {
				stuck = &fail
			}
			time.AfterFunc(500*time.Millisecond, func() { stuck.Store(true) })
			time.AfterFunc(1200*time.Millisecond, func() { stuck.Store(false) })
			defer stuck.Store(false)
			run, err := runOneOpts(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, 2*time.Second,
				func(st *study.Study) { st.Targets[0].URL = tc.url },
				func(o *Options) { o.readLoad = tc.load() })
			s := run.Summary
			if s.DeadSeconds < 4 {
				t.Fatalf("%d dead ticks, want about 7", s.DeadSeconds)
			}
			if tc.wantFail {
				if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "max_dead_ratio") {
					t.Fatalf("status %s, error %q: want failed past max_dead_ratio", run.Status, run.Error)
				}
				return
			}
			if err != nil || run.Status != result.StatusOK {
				t.Fatalf("status %s, err %v: want ok, flagged", run.Status, err)
			}
			if flagKinds(s.Flags)[tc.wantFlag] == 0 {
				t.Fatalf("not flagged %q: %+v", tc.wantFlag, s.Flags)
			}
		})
	}
}

// A measured phase that overran its planned duration many times over (an
// operation froze past the stop) is flagged stalled, with the reason, for
// the wall time and for the operation longer than the measured phase.
func TestRunThatOverranItsDurationIsFlaggedStalled(t *testing.T) {
	start := time.Now()
	var froze atomic.Bool
	op := func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		if time.Since(start) > 150*time.Millisecond && froze.CompareAndSwap(false, true) {
			time.Sleep(2500 * time.Millisecond) // deaf to its context, as a frozen call is
		}
		time.Sleep(time.Millisecond)
		return 0, nil
	}
	run, err := runOneOpts(t, context.Background(), op, study.Workload{Clients: []study.ClientLevel{{N: 2}}}, 0, 300*time.Millisecond, nil,
		func(o *Options) { o.readLoad = quietHost })
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("status %s, err %v (%s): want ok, flagged", run.Status, err, run.Error)
	}
	if n := flagKinds(run.Summary.Flags)[result.FlagStalled]; n != 2 {
		t.Fatalf("want 2 stalled flags (wall time, max latency), got %+v", run.Summary.Flags)
	}
	text := result.FlagsText(run.Summary.Flags)
	if !strings.Contains(text, "of a planned 300ms") || !strings.Contains(text, "longer than the 300ms measured phase") {
		t.Fatalf("reasons: %s", text)
	}
}

// The frozen run: 271 s for a 3 s cell, 178 s max latency, its
// seconds not read. Judged on its numbers alone: flagged, not failed, unless
// connections were lost.
func TestFrozenRunIsFlaggedAndAnOutageStillFails(t *testing.T) {
	run := &result.Run{Duration: 271 * time.Second, Env: result.Environment{},
		Series: []result.SeriesPoint{{Second: 1, Missed: true}, {Second: 2, Missed: true}, {Second: 3, Ops: 40}, {Second: 4, Ops: 2}}}
	run.Summary = result.Summary{Transactions: 42, Max: 178e6, MeasuredSeconds: 3}
	setDead(&run.Summary, result.DeadSecondsOf(run.Series, 3, false))
	if s := run.Summary; s.DeadSeconds != 2 || s.StarvedSeconds != 2 {
		t.Fatalf("dead %d, starved %d: want 2 and 2", s.DeadSeconds, s.StarvedSeconds)
	}
	l := limits{MaxErrorRatio: DefaultMaxErrorRatio, MaxDeadRatio: DefaultMaxDeadRatio}
	if why := l.judge(run); why != "" {
		t.Fatalf("judged failed: %s", why)
	}
	kinds := flagKinds(flags(run, 3*time.Second))
	if kinds[result.FlagStalled] != 2 || kinds[result.FlagHostBusy] != 1 {
		t.Fatalf("flags %+v", flags(run, 3*time.Second))
	}
	run.Summary.ReconnectAttempts, run.Summary.Reconnects = 3, 1
	if why := l.judge(run); !strings.Contains(why, "no operation completed in 2 of 3 s") {
		t.Fatalf("with lost connections: %q, want failed", why)
	}
}
