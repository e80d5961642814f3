package main

// Fault tests of the query sets against the real ClickHouse, through the
// fault proxy: the tries mode's outage rules and the reconnect backoff. They
// run in parallel, as fault_test.go's do (its file comment says why).

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/faultproxy"
)

// ssbBehindProxy loads SSB scale 0.01 straight into a fresh ClickHouse
// database and returns a fault proxy in front of the server, slowed so that
// a try takes a while, and the target URL through it.
func ssbBehindProxy(t *testing.T, dir string) (*faultproxy.Proxy, string) {
	t.Helper()
	direct := testenv.FreshClickHouse(t)
	if o := fairbench(t, dir, "load", "--target", direct, "--workload", "ssb", "--scale", "0.01"); o.code != 0 {
		t.Fatalf("load: %s", o.stderr)
	}
	p, target := faultproxy.InFront(t, direct)
	p.CountRequests("FROM lineorder_flat") // every SSB query of the flat form, and no probe of fairbench's
	return p, target
}

// waitAnswered waits until each of clients has sent more than n SSB
// queries through the proxy: as a client sends its next query only once the
// last one is answered, at least n×clients tries have been answered.
func waitAnswered(t *testing.T, p *faultproxy.Proxy, n, clients int64) {
	t.Helper()
	want := (n + 1) * clients
	for deadline := time.Now().Add(2 * time.Minute); p.Requests() < want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d queries went through the proxy in 2 minutes, want %d", p.Requests(), want)
		}
	}
}

// The server gone for good partway through `ssb --tries 10`: the run goes on
// to its end recording nulls, and is stored as failed (exit 1) naming the
// failed tries; the client backs off between its attempts to reconnect, and
// none counts as a reconnect, as the server never answered again.
func TestFaultQuerySetServerGone(t *testing.T) {
	t.Parallel() // see the file comment
	dir := t.TempDir()
	proxy, target := ssbBehindProxy(t, dir)
	proxy.SetLatency(20 * time.Millisecond)
	p := startUntil(t, dir, "reusing the data", "run", "--target", target, "--workload", "ssb", "--scale", "0.01",
		"--tries", "10", "--queries", "Q1.1,Q1.2,Q1.3")
	waitAnswered(t, proxy, 2, 1)
	proxy.Down()
	code, _ := p.stop(t, nil)
	runs := storedRuns(t, dir)
	if len(runs) != 1 {
		t.Fatalf("want the run stored, got %d runs\n%s", len(runs), p.errText())
	}
	r := runs[0]
	s := r.Summary
	t.Logf("exit %d; stored %s %q; %d ok, %d failed tries; %d reconnects in %d attempts; dead %d s (%s) of %s",
		code, r.Status, r.Error, s.Transactions, s.Failed, s.Reconnects, s.ReconnectAttempts, s.DeadSeconds, result.SpansText(s.DeadSpans), r.Duration)
	if code != 1 || r.Status != result.StatusFailed || !strings.Contains(r.Error, "tries failed") {
		t.Fatalf("exit %d, status %s %q: want a failed run naming its failed tries\n%s\n%s", code, r.Status, r.Error, p.stdout.String(), p.errText())
	}
	if s.Transactions == 0 || s.Transactions+s.Failed != 30 || len(s.Queries) != 3 {
		t.Errorf("%d ok and %d failed of 30 tries, %d queries: the run did not go on to its end", s.Transactions, s.Failed, len(s.Queries))
	}
	// At most one attempt per failed try, and a wait before each but the
	// first: the backoff's bound, whatever the run's length.
	if s.Reconnects != 0 || s.ReconnectAttempts == 0 || s.ReconnectAttempts > s.Failed {
		t.Errorf("%d reconnects in %d attempts for %d failed tries: want attempts, at most one per failed try, and no reconnect", s.Reconnects, s.ReconnectAttempts, s.Failed)
	}
	if s.DeadSeconds == 0 || !strings.Contains(p.stdout.String(), "dead seconds of") {
		t.Errorf("dead time %d s, summary:\n%s", s.DeadSeconds, p.stdout.String())
	}
}

// The server down for 2 s of a 6 s `ssb --mode concurrent` run with 2
// clients: ClickHouse's sessions are handles on a pool, so replacing one
// never fails and each query finds the server gone at once. The clients
// back off between attempts (10 ms doubling to 1 s, each wait at least half
// its length: at most 8 + 2 per second of outage each, here with slack),
// and each counts one reconnect, when a query succeeds again.
func TestFaultConcurrentQuerySetBacksOff(t *testing.T) {
	t.Parallel() // see the file comment
	dir := t.TempDir()
	proxy, target := ssbBehindProxy(t, dir)
	p := startUntil(t, dir, "reusing the data", "run", "--target", target, "--workload", "ssb", "--scale", "0.01",
		"--mode", "concurrent", "-c", "2", "--duration", "6s")
	waitAnswered(t, proxy, 2, 2)
	proxy.DownFor(2 * time.Second)
	code, _ := p.stop(t, nil)
	runs := storedRuns(t, dir)
	if len(runs) != 1 {
		t.Fatalf("want the run stored, got %d runs\n%s", len(runs), p.errText())
	}
	r := runs[0]
	s := r.Summary
	t.Logf("exit %d; stored %s %q; %d ok, %d failed; %d reconnects in %d attempts; dead %d s (%s)",
		code, r.Status, r.Error, s.Transactions, s.Failed, s.Reconnects, s.ReconnectAttempts, s.DeadSeconds, result.SpansText(s.DeadSpans))
	bound := int64(2 * 2 * (8 + 2*int(r.Duration.Seconds()+1)))
	if s.ReconnectAttempts < 2 || s.ReconnectAttempts > bound || s.Failed > bound+2 {
		t.Errorf("%d reconnect attempts, %d failed queries: want 2 to %d", s.ReconnectAttempts, s.Failed, bound)
	}
	if s.Reconnects != 2 {
		t.Errorf("%d reconnects, want 2: one per client, once the server answered", s.Reconnects)
	}
	if s.Transactions == 0 {
		t.Errorf("no query succeeded\n%s", p.errText())
	}
}
