package main

// Fault tests: the real binary against the real servers, through a TCP fault
// proxy on loopback (internal/testenv/faultproxy). Each asserts what the run
// reports — reconnects, dead seconds, errors by class, exit code — and that
// nothing measured is lost. The runs are rate-limited (-R) so that they load
// a shared server lightly; a rate of 100/s leaves no second empty by chance.
//
// These tests, and the query sets' in queryset_fault_test.go, run in
// parallel with each other and the other long tests (scripts/test.sh gives
// go test -parallel 8): each is seconds of a timed run that waits far more
// than it computes, each on a fresh database behind a proxy of its own, and
// what they assert are counts (reconnects, dead seconds, errors by class),
// none a rate that a busy machine would move.

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/faultproxy"
)

// engines are the servers the fault tests run against: a fresh database
// each, and the variable through which the engine's driver takes a password
// the URL leaves out.
var engines = map[string]struct {
	fresh       func(testing.TB) string
	passwordEnv string
}{
	"postgres": {testenv.FreshPostgres, "PGPASSWORD"},
	"mariadb":  {testenv.FreshMySQL, "MYSQL_PWD"},
}

// behindProxy loads tpcb scale 1 straight into a fresh database of the
// engine and returns a fault proxy in front of the server, the target URL
// through it and the environment that holds its password. The password is
// kept off the command lines, as the docs advise: the HammerDB tests, which
// run beside these, fail on any command line that holds it.
func behindProxy(t *testing.T, dir, engine string) (*faultproxy.Proxy, string, []string) {
	t.Helper()
	e := engines[engine]
	u, err := url.Parse(e.fresh(t))
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if pw, ok := u.User.Password(); ok {
		env = []string{e.passwordEnv + "=" + pw}
		u.User = url.User(u.User.Username())
	}
	if o := fairbenchEnv(t, dir, env, "load", "--target", u.String(), "--workload", "tpcb", "--scale", "1"); o.code != 0 {
		t.Fatalf("load: %s", o.stderr)
	}
	p, target := faultproxy.InFront(t, u.String())
	return p, target, env
}

// faultRun runs tpcb select-only with 2 clients for 8 s at 100/s through
// the proxy, calls fault when the measured phase is 2 s old, and returns the
// outcome and the stored run.
func faultRun(t *testing.T, dir, target string, env []string, fault func(), extra ...string) (int, *started, *result.Run) {
	t.Helper()
	args := append([]string{"run", "--target", target, "--workload", "tpcb", "--mode", "select-only",
		"-c", "2", "-T", "8s", "-P", "1", "-R", "100"}, extra...)
	p := startUntilLineEnv(t, dir, env, "progress: 2.0 s", progressAt(2), args...)
	fault()
	code, _ := p.stop(t, nil)
	runs := storedRuns(t, dir)
	if len(runs) != 1 {
		t.Fatalf("want the run stored, got %d runs\n%s", len(runs), p.errText())
	}
	r := runs[0]
	if r.Summary.Transactions == 0 || len(r.Series) < 7 || len(r.Ops) == 0 || len(r.Ops[0].Histogram) == 0 {
		t.Fatalf("measurements lost: %d transactions, %d points\n%s", r.Summary.Transactions, len(r.Series), p.errText())
	}
	su := r.Summary
	t.Logf("exit %d; stored %s: %d ok, %d failed, %d reconnects in %d attempts, %d dead seconds (%s), max %.0f ms; %q; first errors %v; reconnect error %q",
		code, r.Status, su.Transactions, su.Failed, su.Reconnects, su.ReconnectAttempts, su.DeadSeconds,
		result.SpansText(su.DeadSpans), su.Max/1000, r.Error, su.FirstErrors, su.ReconnectError)
	return code, p, r
}

func outageWarnings(t *testing.T, r *result.Run) []analysis.Warning {
	t.Helper()
	r.Status = result.StatusOK // a failed run is not grouped; its warning text is what is checked
	gs, err := analysis.GroupRuns([]*result.Run{r})
	if err != nil {
		t.Fatal(err)
	}
	var out []analysis.Warning
	for _, w := range analysis.Warnings(gs, "") {
		if w.Check == analysis.CheckOutage {
			out = append(out, w)
		}
	}
	return out
}

func connectionErrors(r *result.Run) (conn, other int64) {
	for _, op := range r.Ops {
		for c, n := range op.Errors {
			if c == result.ErrConnection {
				conn += n
			} else {
				other += n
			}
		}
	}
	return conn, other
}

// The server unreachable for 3 s of an 8 s run: the clients reconnect once it
// is back, the dead seconds are counted and named with the connection error,
// and past max_dead_ratio (10 %) the run is stored as failed and the command
// exits 1; with --max-dead-ratio 0.9 the same outage is a warning only.
func TestFaultServerDownForSeconds(t *testing.T) {
	t.Parallel() // see the file comment
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			for _, tc := range []struct {
				name     string
				extra    []string
				wantCode int
			}{{"default threshold", nil, 1}, {"lenient threshold", []string{"--max-dead-ratio", "0.9"}, 0}} {
				t.Run(tc.name, func(t *testing.T) {
					dir := t.TempDir()
					proxy, target, env := behindProxy(t, dir, engine)
					code, p, r := faultRun(t, dir, target, env, func() { proxy.DownFor(3 * time.Second) }, tc.extra...)
					s := r.Summary
					if code != tc.wantCode {
						t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.wantCode, p.stdout.String(), p.errText())
					}
					if s.Reconnects != 2 || s.ReconnectAttempts <= 2 {
						t.Errorf("reconnects %d in %d attempts, want 2 (one per client) in more", s.Reconnects, s.ReconnectAttempts)
					}
					if s.DeadSeconds < 2 || s.DeadSeconds > 4 {
						t.Errorf("%d dead seconds %v, want about 3", s.DeadSeconds, s.DeadSpans)
					}
					if conn, other := connectionErrors(r); conn == 0 || other != 0 {
						t.Errorf("errors: %d connection, %d other; want connection errors only", conn, other)
					}
					if s.FirstErrors[result.ErrConnection] == "" || !strings.Contains(s.ReconnectError, "refused") {
						t.Errorf("the connection errors' text was not kept: %v, reconnect %q", s.FirstErrors, s.ReconnectError)
					}
					if !strings.Contains(p.stdout.String(), "outage: 2 reconnects") || !strings.Contains(p.stdout.String(), "dead seconds of") {
						t.Errorf("the summary does not show the outage:\n%s", p.stdout.String())
					}
					if tc.wantCode == 1 {
						if r.Status != result.StatusFailed || !strings.Contains(r.Error, "max_dead_ratio") || !strings.Contains(p.errText(), "no operation completed in") {
							t.Errorf("want a failed run naming max_dead_ratio: %s %q", r.Status, r.Error)
						}
					} else if r.Status != result.StatusOK {
						t.Errorf("status %s under a lenient threshold: %s", r.Status, r.Error)
					}
					w := outageWarnings(t, r)
					if len(w) != 1 || !strings.Contains(w[0].Message, "no operation completed in") || !strings.Contains(w[0].Message, "first connection error: ") {
						t.Errorf("outage warning: %+v", w)
					}
				})
			}
		})
	}
}

// Every connection reset mid-run: each client counts a connection error and
// reconnects at once; no second is dead and the run stands (exit 0), with
// the reconnects in its summary and an outage warning.
func TestFaultConnectionResetMidRun(t *testing.T) {
	t.Parallel() // see the file comment
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			proxy, target, env := behindProxy(t, dir, engine)
			code, p, r := faultRun(t, dir, target, env, func() { proxy.ResetAll() })
			s := r.Summary
			if code != 0 || r.Status != result.StatusOK {
				t.Fatalf("exit %d, status %s %q\n%s", code, r.Status, r.Error, p.errText())
			}
			if s.Reconnects != 2 || s.ReconnectAttempts != 2 {
				t.Errorf("reconnects %d in %d attempts, want 2 in 2", s.Reconnects, s.ReconnectAttempts)
			}
			if conn, other := connectionErrors(r); conn < 1 || conn > 2 || other != 0 {
				t.Errorf("errors: %d connection, %d other; want 1–2 connection errors", conn, other)
			}
			if s.DeadSeconds != 0 {
				t.Errorf("%d dead seconds %v after a reset, want none", s.DeadSeconds, s.DeadSpans)
			}
			if !strings.Contains(p.stdout.String(), "outage: 2 reconnects (2 attempts)") {
				t.Errorf("summary:\n%s", p.stdout.String())
			}
			if w := outageWarnings(t, r); len(w) != 1 || !strings.Contains(w[0].Message, "2 lost connections replaced in 2 attempts") {
				t.Errorf("outage warning: %+v", w)
			}
		})
	}
}

// Every reply cut after a few bytes, once per connection (the server dies
// mid-reply): the driver sees a torn message; it must count as a connection
// error and the client must reconnect, not go on with a broken session.
func TestFaultReplyCutMidway(t *testing.T) {
	t.Parallel() // see the file comment
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			proxy, target, env := behindProxy(t, dir, engine)
			code, p, r := faultRun(t, dir, target, env, func() { proxy.CutReplies(3) })
			s := r.Summary
			if code != 0 || r.Status != result.StatusOK {
				t.Fatalf("exit %d, status %s %q\n%s", code, r.Status, r.Error, p.errText())
			}
			if s.Reconnects != 2 {
				t.Errorf("reconnects %d in %d attempts, want 2", s.Reconnects, s.ReconnectAttempts)
			}
			if conn, other := connectionErrors(r); conn < 1 || conn > 2 || other != 0 {
				t.Errorf("errors: %d connection, %d other (%v); want 1–2 connection errors", conn, other, s.FirstErrors)
			}
		})
	}
}

// A latency spike (250 ms added to every chunk each way for 2 s): no error,
// no reconnect, no dead second; the spike shows in the latency from each
// operation's intended start (rate mode: no coordinated omission).
func TestFaultLatencySpike(t *testing.T) {
	t.Parallel() // see the file comment
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			proxy, target, env := behindProxy(t, dir, engine)
			code, p, r := faultRun(t, dir, target, env, func() {
				proxy.SetLatency(250 * time.Millisecond)
				time.AfterFunc(2*time.Second, func() { proxy.SetLatency(0) })
			})
			s := r.Summary
			if code != 0 || r.Status != result.StatusOK || s.Failed != 0 || s.ReconnectAttempts != 0 || s.DeadSeconds != 0 {
				t.Fatalf("exit %d, status %s, %d failed, %d reconnect attempts, %d dead seconds\n%s",
					code, r.Status, s.Failed, s.ReconnectAttempts, s.DeadSeconds, p.errText())
			}
			if s.Max < 500_000 || s.LagMax < 250_000 {
				t.Errorf("max latency %.0f µs, max schedule lag %.0f µs: the spike does not show", s.Max, s.LagMax)
			}
			if strings.Contains(p.stdout.String(), "outage:") {
				t.Errorf("an outage reported for a latency spike:\n%s", p.stdout.String())
			}
		})
	}
}

// A partition that never heals: the clients hang in reads, and the run still
// ends on time (the executor interrupts hung statements), stored as failed
// for its dead seconds, exit 1.
func TestFaultPartitionUntilTheEnd(t *testing.T) {
	t.Parallel() // see the file comment
	for engine := range engines {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			proxy, target, env := behindProxy(t, dir, engine)
			start := time.Now()
			code, p, r := faultRun(t, dir, target, env, func() { proxy.Stall(true) })
			// A client hung in a read would never end; the run ends at its 8 s.
			if took := time.Since(start); took > 8*time.Second+testenv.StopDeadline {
				t.Errorf("an 8 s run took %v with a hung server", took)
			}
			if code != 1 || r.Status != result.StatusFailed || r.Summary.DeadSeconds < 5 {
				t.Fatalf("exit %d, status %s, %d dead seconds: %q\n%s", code, r.Status, r.Summary.DeadSeconds, r.Error, p.errText())
			}
		})
	}
}

// A run whose every operation fails (here a trigger refuses every update of
// pgbench_accounts): exit 1, stored as failed with its failed operations, and
// the server's own error text on the screen and in the results file.
func TestEveryOperationFailedShowsTheServerError(t *testing.T) {
	dir := t.TempDir()
	target := testenv.FreshPostgres(t)
	if o := fairbench(t, dir, "load", "--target", target, "--workload", "tpcb", "--scale", "1"); o.code != 0 {
		t.Fatalf("load: %s", o.stderr)
	}
	conn := testenv.Connect(t, target, driver.Options{})
	sqlc := conn.(driver.SQL)
	for _, q := range []string{
		`CREATE FUNCTION fb_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'fault test: updates of accounts refused'; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER fb_refuse BEFORE UPDATE ON pgbench_accounts FOR EACH ROW EXECUTE FUNCTION fb_refuse()`,
	} {
		if err := sqlc.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	o := fairbench(t, dir, "run", "--target", target, "--workload", "tpcb", "-c", "2", "-T", "2s", "-R", "50")
	if o.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	const text = "fault test: updates of accounts refused"
	if !strings.Contains(o.stderr, "every operation failed") || !strings.Contains(o.stderr, text) || !strings.Contains(o.stdout, text) {
		t.Fatalf("the server's error text is not shown:\n%s\n%s", o.stdout, o.stderr)
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 || runs[0].Status != result.StatusFailed || runs[0].Summary.Failed == 0 || runs[0].Summary.Transactions != 0 ||
		!strings.Contains(runs[0].Summary.FirstErrors[result.ErrOther], text) {
		t.Fatalf("want one failed run keeping its failures and the text, got %+v", runs)
	}
}
