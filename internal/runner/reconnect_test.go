package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// poolDriver's sessions are handles on a pool, as ClickHouse's, MongoDB's
// and OpenSearch's are: taking one never fails, whether the server is up or
// not; only the operations find out (fakeDown).
type poolDriver struct{}

func (poolDriver) Name() string { return "fakepool" }
func (poolDriver) Open(context.Context, driver.Target, driver.Options) (driver.Client, error) {
	return driver.NewConnClient(func(context.Context) (driver.Conn, error) { return poolConn{}, nil }, false), nil
}

// poolConn answers analytical queries in 5 ms, and fails them with a lost
// connection while fakeDown is set or when queryDown says so of the call.
type poolConn struct{ fakeConn }

var (
	queryCalls atomic.Int64
	queryDown  func(call int64) bool
)

func (poolConn) Analyze(context.Context, string, func([]any) error) (driver.QueryStats, error) {
	if n := queryCalls.Add(1); fakeDown.Load() || queryDown != nil && queryDown(n) {
		return driver.QueryStats{}, classErr{result.ErrConnection}
	}
	time.Sleep(5 * time.Millisecond)
	return driver.QueryStats{Rows: 1}, nil
}

func init() { driver.Register(poolDriver{}, "fakepool://") }

// downOp fails at once with a lost connection while fakeDown is set.
func downOp(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
	if fakeDown.Load() {
		return 0, classErr{result.ErrConnection}
	}
	time.Sleep(time.Millisecond)
	return 0, nil
}

// maxAttempts is the most reconnect attempts one client can make in d by the
// backoff schedule, each wait at its shortest (half its length), every
// attempt and operation taking no time.
func maxAttempts(d, limit time.Duration) int64 {
	n, wait, spent := int64(1), time.Duration(0), time.Duration(0)
	for {
		wait = reconnectWait(wait, limit)
		if spent += wait / 2; spent > d {
			return n
		}
		n++
	}
}

func runOnPool(t *testing.T, clients int, d time.Duration) *result.Run {
	t.Helper()
	run, _ := runOneWith(t, context.Background(), downOp, study.Workload{Clients: []study.ClientLevel{{N: clients}}}, 0, d,
		func(st *study.Study) { st.Targets[0].URL = "fakepool://x" })
	return run
}

// A server that is down for the whole run behind a driver whose sessions
// never fail: the clients back off between attempts (within the schedule's
// bound, not thousands a second) and no attempt counts as a reconnect, as
// none was followed by an answer from the server.
func TestReconnectBacksOffAndCountsNoReconnectWhileDown(t *testing.T) {
	fakeDown.Store(true)
	defer fakeDown.Store(false)
	const clients = 3
	run := runOnPool(t, clients, 2*time.Second)
	s := run.Summary
	bound := 2 * clients * maxAttempts(run.Duration+time.Second, 100*time.Millisecond) // the ticks are 100 ms; generous slack
	t.Logf("%d attempts, %d reconnects, %d failed operations in %s (bound %d)", s.ReconnectAttempts, s.Reconnects, s.Failed, run.Duration, bound)
	if s.ReconnectAttempts < clients || s.ReconnectAttempts > bound {
		t.Errorf("%d reconnect attempts, want between %d and the backoff's bound %d", s.ReconnectAttempts, clients, bound)
	}
	if s.Reconnects != 0 {
		t.Errorf("%d reconnects counted against a server that never answered", s.Reconnects)
	}
	if s.Failed > bound+clients {
		t.Errorf("%d failed operations: the clients did not wait between attempts", s.Failed)
	}
	if run.Status != result.StatusFailed || !strings.Contains(run.Error, "0 reconnects in") {
		t.Errorf("status %s, error %q: want a failed run naming its reconnects", run.Status, run.Error)
	}
}

// The same server back after a while: each client's replacement session
// counts once, when an operation succeeds on it.
func TestReconnectCountsOnceTheServerAnswers(t *testing.T) {
	fakeDown.Store(true)
	defer fakeDown.Store(false)
	time.AfterFunc(700*time.Millisecond, func() { fakeDown.Store(false) })
	const clients = 3
	run := runOnPool(t, clients, 2*time.Second)
	s := run.Summary
	t.Logf("%d attempts, %d reconnects, %d failed operations", s.ReconnectAttempts, s.Reconnects, s.Failed)
	if s.Reconnects != clients || s.ReconnectAttempts <= clients {
		t.Errorf("%d reconnects in %d attempts, want %d (one per client) in more", s.Reconnects, s.ReconnectAttempts, clients)
	}
	if s.Transactions == 0 {
		t.Errorf("no operation succeeded after the server came back")
	}
}

// The schedule: 10 ms doubling to the limit, and every wait drawn within
// its upper half.
func TestReconnectWaitSchedule(t *testing.T) {
	var got []time.Duration
	for d := time.Duration(0); len(got) < 9; {
		d = reconnectWait(d, time.Second)
		got = append(got, d)
	}
	want := []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("waits %v, want %v ms", got, want)
		}
	}
	if d := reconnectWait(0, 5*time.Millisecond); d != 5*time.Millisecond {
		t.Errorf("first wait under a 5 ms limit: %s", d)
	}
	for range 1000 {
		if j := jittered(time.Second); j < 500*time.Millisecond || j > time.Second {
			t.Fatalf("jittered wait %s outside [0.5 s, 1 s]", j)
		}
	}
}
