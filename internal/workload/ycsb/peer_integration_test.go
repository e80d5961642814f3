package ycsb_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// The size of the side-by-side runs: records loaded, operations asked for
// over all clients (a multiple of the clients: go-ycsb gives each thread
// operationcount ÷ threadcount).
const (
	peerRecords    = 1000
	peerOperations = 4000
	peerClients    = 4
)

// ycsbPeerCell is a one-cell study of YCSB's workload A on url, count-bound
// (the duration only bounds it): the native workload, or go-ycsb
// (tool = "ycsb") with the same parameters.
func ycsbPeerCell(url, tool string) string {
	line := `kind = "ycsb"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "ycsb beside go-ycsb"
warmup = "0s"
duration = "120s"
[[target]]
name = "pg"
url = "%s"
[[workload]]
%s
workload = "a"
clients = [%d]
recordcount = %d
operationcount = %d
`, url, line, peerClients, peerRecords, peerOperations)
}

// readsAndUpdates are a run's operations of each type that succeeded, and
// those that failed of any type.
func readsAndUpdates(r *result.Run) (reads, updates, failed int64) {
	for _, op := range r.Ops {
		switch op.Name {
		case ycsbparams.Read:
			reads += op.Count
		case ycsbparams.Update:
			updates += op.Count
		}
		for _, n := range op.Errors {
			failed += n
		}
	}
	return reads, updates, failed
}

func rowCount(t *testing.T, url, table string) int64 {
	t.Helper()
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	defer c.Close(context.Background())
	n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM "+table)
	if err != nil {
		t.Fatalf("counting %s: %v", table, err)
	}
	return n
}

// go-ycsb and fairbench's ycsb, one after the other in the same fresh
// database, of PostgreSQL and of MariaDB, each on its own table (go-ycsb's
// fairbench_ycsb, loaded by go-ycsb load; the native usertable, loaded by
// the workload), with YCSB's workload A (50 % reads, 50 % updates, zipfian keys), 1 000
// records and 4 000 operations over 4 clients: each tool performs exactly
// the operations asked for (go-ycsb's count as its output says it, read by
// the adapter that imports it), none failing; each table holds the records
// asked for after the runs (workload A inserts none); and the share of
// reads is 50 % within 5 standard deviations of a binomial share for each,
// and the two shares within 5 standard deviations of their difference
// (3.9 and 5.6 points: workload B's 95 % reads, or updates counted as
// reads, are far outside). Rates are not compared: on a shared host they
// vary from one minute to the next (bench/ pairs them instead).
func TestYCSBAgreesWithGoYCSB(t *testing.T) {
	testenv.GoYCSB(t)
	for _, engine := range []struct {
		name  string
		fresh func(testing.TB) string
	}{{"postgres", testenv.FreshPostgres}, {"mariadb", testenv.FreshMySQL}} {
		t.Run(engine.name, func(t *testing.T) {
			url := engine.fresh(t)
			shares := map[string]float64{}
			for _, tool := range []string{"ycsb", ""} {
				name, table := "go-ycsb", adapter.YcsbTable
				if tool == "" {
					name, table = "fairbench", "usertable"
				}
				run, err := cellrun.One(t, ycsbPeerCell(url, tool), false)
				if err != nil || run.Status != result.StatusOK {
					t.Fatalf("%s: %v (%s %s)", name, err, run.Status, run.Error)
				}
				reads, updates, failed := readsAndUpdates(run)
				if reads+updates != peerOperations || failed != 0 {
					t.Errorf("%s: %d reads + %d updates, %d failed; want the %d operations asked for, none failed", name, reads, updates, failed, peerOperations)
				}
				if n := rowCount(t, url, table); n != peerRecords {
					t.Errorf("%s: %s holds %d records, want the %d loaded", name, table, n, peerRecords)
				}
				share := float64(reads) / float64(reads+updates)
				if tol := 5 * math.Sqrt(0.25/peerOperations); math.Abs(share-0.5) > tol {
					t.Errorf("%s: reads are %.1f %% of the operations, want 50 ± %.1f %%", name, 100*share, 100*tol)
				}
				shares[name] = share
			}
			t.Logf("share of reads: go-ycsb %.4f, fairbench %.4f", shares["go-ycsb"], shares["fairbench"])
			if d, tol := math.Abs(shares["go-ycsb"]-shares["fairbench"]), 5*math.Sqrt(2*0.25/peerOperations); d > tol {
				t.Errorf("the shares of reads differ by %.1f points, want at most %.1f", 100*d, 100*tol)
			}
		})
	}
}
