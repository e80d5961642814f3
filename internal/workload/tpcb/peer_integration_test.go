package tpcb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// tpcbCell is a one-cell study of pgbench's TPC-B-like script on url, 4
// clients × 150 transactions each, no vacuum (pgbench -n: history kept): the
// native workload, or pgbench itself (tool = "pgbench").
func tpcbCell(url, tool string) string {
	line := `kind = "tpcb"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "tpcb beside pgbench"
warmup = "0s"
duration = "120s"
[[target]]
name = "pg"
url = "%s"
[[workload]]
%s
mode = "tpcb-like"
scale = 1
clients = [4]
transactions = 150
vacuum = false
`, url, line)
}

func historyRows(t *testing.T, url string) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pgbench and fairbench's tpcb, one after the other on the same tables, with
// the same script, clients and transactions per client: each tool's
// "number of transactions actually processed" (pgbench's as its output says
// it, read by the adapter that imports it) is the 600 asked for and the rows
// the script inserted into pgbench_history while it ran, the database's own
// count of committed TPC-B transactions. Both report a measured latency
// average (pgbench's printSimpleStats under -P, which its cells pass), and
// each tool's tps × latency average is at most its clients (Little's law for
// a closed loop: the time between a client's transactions only lowers it).
// Rates are not compared: on a shared host they vary from one minute to the
// next (bench/pgbench.sh pairs them instead).
func TestTPCBAgreesWithPgbench(t *testing.T) {
	url := testenv.FreshPostgres(t)
	if err := prepare(t, url, map[string][]any{"scale": {int64(1)}}, false); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"pgbench", ""} {
		name := tool
		if name == "" {
			name = "fairbench"
		}
		before := historyRows(t, url)
		run, err := cellrun.One(t, tpcbCell(url, tool), false)
		if err != nil || run.Status != result.StatusOK {
			t.Fatalf("%s: %v (%s %s)", name, err, run.Status, run.Error)
		}
		inserted := historyRows(t, url) - before
		s := run.Summary
		if s.Transactions != 600 || s.Failed != 0 || inserted != s.Transactions {
			t.Errorf("%s processed %d transactions (%d failed), history grew by %d: want 600 = 4 × 150, each one row", name, s.Transactions, s.Failed, inserted)
		}
		if little := s.Throughput * s.LatencyMean / 1e6 / float64(run.Clients); s.LatencyMean <= 0 || little > 1.05 {
			t.Errorf("%s: tps %.1f × latency average %.3f ms = %.2f clients busy of %d", name, s.Throughput, s.LatencyMean/1000, little*float64(run.Clients), run.Clients)
		}
	}
}
