package clickhouse

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func serverView(t *testing.T, ctx context.Context, c *client) driver.ServerSampler {
	t.Helper()
	sv, err := c.ServerView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close(context.Background()) })
	return sv
}

func sample(t *testing.T, sv driver.ServerSampler) result.EngineSample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := sv.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const numbersQuery = "SELECT count() FROM numbers(100000)"

// system.events counts the session's queries, system.metrics has the
// server's memory; with log_queries off (the test server's default) the
// query log is unavailable and says which setting would enable it.
func TestServerViewCountsQueriesAndNamesLogQueries(t *testing.T) {
	s, _ := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var on string
	if err := s.c.conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'log_queries'").Scan(&on); err != nil {
		t.Fatal(err)
	}
	sv := serverView(t, ctx, s.c)
	u := sv.Unavailable()
	if on == "0" && (len(u) != 1 || !strings.Contains(u[0], "log_queries=1")) {
		t.Errorf("log_queries is 0: Unavailable = %q, want the setting named", u)
	}
	if on != "0" && len(u) != 0 {
		t.Errorf("Unavailable = %q", u)
	}
	before := sample(t, sv)
	for range 3 {
		if _, err := s.Analyze(ctx, numbersQuery, nil); err != nil {
			t.Fatal(err)
		}
	}
	after := sample(t, sv)
	for _, name := range []string{"system.events.Query", "system.events.SelectQuery"} {
		// At least this session's three, and the sampler's own first sample.
		if d := after.Counters[name] - before.Counters[name]; d < 3 {
			t.Errorf("%s moved by %v, want at least 3 (%v)", name, d, after.Counters)
		}
	}
	if after.Gauges["system.metrics.MemoryTracking"] == 0 || after.Gauges["system.metrics.TCPConnection"] < 1 {
		t.Errorf("gauges: %v", after.Gauges)
	}
	if sv.Units()["system.metrics.MemoryTracking"] != "bytes" {
		t.Errorf("units: %v", sv.Units())
	}
}

// With the query log on (here by the queries' own log_queries=1, as a
// user's profile would set it), the sampler sums exactly this client's
// finished queries: not its own, not other clients'.
func TestServerViewSumsTheClientsOwnQueries(t *testing.T) {
	s, _ := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logged := ch.Context(ctx, ch.WithSettings(ch.Settings{"log_queries": 1}))
	sv := serverView(t, logged, s.c)
	if u := sv.Unavailable(); len(u) != 0 {
		t.Errorf("Unavailable with log_queries=1: %q", u)
	}
	other := open(t, testenv.ClickHouseURL(t)) // another client: its own prefix
	before := sample(t, sv)
	for range 3 {
		if _, err := s.Analyze(logged, numbersQuery, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Analyze(logged, numbersQuery, nil); err != nil {
			t.Fatal(err)
		}
	}
	after := sample(t, sv)
	if d := after.Counters[logQueries] - before.Counters[logQueries]; d != 3 {
		t.Errorf("%s moved by %v, want this client's 3", logQueries, d)
	}
	if d := after.Counters[logReadRows] - before.Counters[logReadRows]; d < 3*100000 {
		t.Errorf("%s moved by %v, want at least 300000", logReadRows, d)
	}
	if after.Counters[logReadBytes] <= before.Counters[logReadBytes] {
		t.Errorf("%s did not move: %v", logReadBytes, after.Counters)
	}
	if _, ok := after.Gauges[logMemoryMax]; !ok {
		t.Errorf("no %s in %v", logMemoryMax, after.Gauges)
	}
}

// A server that never answers fails ServerView at the context's deadline;
// one that is gone fails it at once.
func TestServerViewOfAnUnreachableServerFails(t *testing.T) {
	s, _ := freshDB(t)
	silent, _ := testenv.SilentServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	for _, addr := range []string{silent, gone} {
		cfg := s.c.cfg
		opts := *cfg.opts
		opts.Addr = []string{addr}
		cfg.opts = &opts
		c := &client{cfg: cfg, ids: s.c.ids}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		done := make(chan error, 1)
		go func() {
			sv, err := c.ServerView(ctx)
			if err == nil {
				sv.Close(ctx)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("ServerView on %s succeeded", addr)
			}
		case <-time.After(testenv.StopDeadline):
			t.Fatalf("ServerView on %s did not end with its context", addr)
		}
		cancel()
	}
}

// A user who may not flush the system logs gets the query log all the same
// (late by the flush interval), and Unavailable names the grant.
func TestServerViewNamesTheFlushGrant(t *testing.T) {
	s, _ := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// readonly=2 refuses SYSTEM queries as a user without the grant is
	// refused them, and lets the query set log_queries.
	limited := ch.Context(ctx, ch.WithSettings(ch.Settings{"log_queries": 1, "readonly": 2}))
	sv := serverView(t, limited, s.c)
	u := sv.Unavailable()
	if len(u) != 1 || !strings.Contains(u[0], "GRANT SYSTEM FLUSH LOGS ON *.* TO default") {
		t.Errorf("Unavailable = %q, want the flush grant named", u)
	}
	if _, ok := sample(t, sv).Counters[logQueries]; !ok {
		t.Error("the query log is read without the flush too")
	}
}
