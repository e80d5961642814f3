package tpcc_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
	"github.com/fairbench/fairbench/internal/workload/tpcc"
)

// tpccPeerCell is a one-cell study of TPC-C on url, 1 warehouse, 2 clients
// for 10 s, no keying or thinking time: the native workload, or go-tpc
// (tool = "go-tpc") with the same parameters.
func tpccPeerCell(url, tool string) string {
	line := `kind = "tpcc"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "tpcc beside go-tpc"
warmup = "0s"
duration = "10s"
[[target]]
name = "pg"
url = "%s"
[[workload]]
%s
warehouses = 1
clients = [2]
`, url, line)
}

// orderRows are the rows of orders and new_order, and the orders not yet
// delivered (no carrier).
type orderRows struct{ orders, newOrder, undelivered int64 }

// rolledBackTransactions are the database's rolled-back transactions as
// PostgreSQL counts them (pg_stat_database), read until they stop moving: a
// backend publishes its counts when it exits or within a second of its
// transaction.
func rolledBackTransactions(t *testing.T, c driver.SQL) int64 {
	t.Helper()
	var last int64 = -1
	for range 30 {
		n, err := c.QueryInt64(context.Background(), "SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()")
		if err != nil {
			t.Fatal(err)
		}
		if n == last {
			break
		}
		last = n
		time.Sleep(500 * time.Millisecond)
	}
	return last
}

func countOrders(t *testing.T, c driver.SQL) orderRows {
	t.Helper()
	var r orderRows
	for q, into := range map[string]*int64{
		"SELECT count(*) FROM orders":                            &r.orders,
		"SELECT count(*) FROM new_order":                         &r.newOrder,
		"SELECT count(*) FROM orders WHERE o_carrier_id IS NULL": &r.undelivered,
	} {
		n, err := c.QueryInt64(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		*into = n
	}
	return r
}

// opCounts are a run's transactions of each type that succeeded, and the
// failed ones of every type.
func opCounts(r *result.Run) (map[string]int64, int64) {
	counts := map[string]int64{}
	var failed int64
	for _, op := range r.Ops {
		counts[op.Name] += op.Count
		for _, n := range op.Errors {
			failed += n
		}
	}
	return counts, failed
}

// checkMix: each transaction type's share of the run is the specification's
// (45/43/4/4/4, clause 5.2.3) within 5 standard deviations of a binomial
// share of the run's transactions (go-tpc draws each transaction at random
// with those weights; fairbench deals them from a deck, closer still).
func checkMix(t *testing.T, name string, counts map[string]int64) {
	t.Helper()
	var total int64
	for _, n := range counts {
		total += n
	}
	if total < 200 {
		t.Fatalf("%s: %d transactions, too few to compare a mix", name, total)
	}
	for i, op := range tpccparams.Ops {
		want := []float64{0.45, 0.43, 0.04, 0.04, 0.04}[i]
		got, tol := float64(counts[op])/float64(total), 5*math.Sqrt(want*(1-want)/float64(total))
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %s is %.1f %% of %d transactions, want %.0f ± %.1f %%", name, op, 100*got, total, 100*want, 100*tol)
		}
	}
}

// go-tpc and fairbench's tpcc, one after the other on the same PostgreSQL
// tables (go-tpc's prepare of 1 warehouse, which the native workload
// reuses), 2 clients for 10 s each, with the counts each leaves in the
// database: the orders rows each run added (orders grows by one row per
// committed New-Order and by nothing else; a New-Order rolled back on
// purpose, clause 2.4.1.4, inserts none).
//
//   - go-tpc counts the New-Orders rolled back on purpose as successes (its
//     tpmC, docs/measurement.md): its New-Orders are the rows added to
//     orders plus the transactions PostgreSQL counted as rolled back during
//     its run, less the ones it counted as failed (each failed transaction
//     is rolled back too; the database is the test's own, and fairbench's
//     sessions around the tool, its marker and checks, roll nothing back);
//   - fairbench's New-Orders less those it rolled back on purpose (its
//     tpmC's count, tpcc.FiguresOf) are the rows added to orders, and the
//     growth of the districts' next order ids it read (its NOPM's count);
//     its run names go-tpc's definition in its deviations when some were
//     rolled back;
//   - after each run the new_order rows are the orders not yet delivered
//     (the count of consistency condition 5, clause 3.3.2.5: an order has
//     no carrier exactly when it has a new_order row);
//   - each mix is the specification's within binomial noise (checkMix).
//
// Rates are not compared: on a shared host they vary from one minute to
// the next (bench/ pairs them instead).
func TestTPCCAgreesWithGoTPC(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse with go-tpc and runs TPC-C for 20 s")
	}
	testenv.GoTPC(t)
	url := testenv.FreshPostgres(t)
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)

	rolledBefore := rolledBackTransactions(t, c)
	peer, err := cellrun.One(t, tpccPeerCell(url, "go-tpc"), false)
	if err != nil || peer.Status != result.StatusOK {
		t.Fatalf("go-tpc: %v (%s %s)", err, peer.Status, peer.Error)
	}
	afterPeer := countOrders(t, c)
	rolled := rolledBackTransactions(t, c) - rolledBefore
	counts, failed := opCounts(peer)
	// go-tpc's load: 3 000 orders in each of the 10 districts (clause 4.3.3.1).
	added := afterPeer.orders - 30000
	t.Logf("go-tpc: %v, %d failed; orders +%d, %d rolled back", counts, failed, added, rolled)
	if counts[tpccparams.NewOrder] != added+rolled-failed {
		t.Errorf("go-tpc counted %d New-Orders; the database added %d orders and rolled back %d transactions, %d of them failed ones: want %d = %d + %d − %d",
			counts[tpccparams.NewOrder], added, rolled, failed, added+rolled-failed, added, rolled, failed)
	}
	if afterPeer.newOrder != afterPeer.undelivered {
		t.Errorf("after go-tpc: %d new_order rows for %d undelivered orders", afterPeer.newOrder, afterPeer.undelivered)
	}
	checkMix(t, "go-tpc", counts)

	own, err := cellrun.One(t, tpccPeerCell(url, ""), false)
	if err != nil || own.Status != result.StatusOK {
		t.Fatalf("fairbench: %v (%s %s)", err, own.Status, own.Error)
	}
	afterOwn := countOrders(t, c)
	counts, failed = opCounts(own)
	added = afterOwn.orders - afterPeer.orders
	rolledOnPurpose := int64(own.Summary.Extra["new_order_rollbacks"])
	committed := counts[tpccparams.NewOrder] - rolledOnPurpose
	t.Logf("fairbench: %v, %d failed; orders +%d, %d rolled back on purpose; districts' next order ids +%v",
		counts, failed, added, rolledOnPurpose, own.Summary.Extra[tpccparams.NewOrders])
	if committed != added || float64(added) != own.Summary.Extra[tpccparams.NewOrders] {
		t.Errorf("fairbench counted %d New-Orders, %d rolled back on purpose; the database added %d orders, its districts' next order ids grew by %v: want all three %d",
			counts[tpccparams.NewOrder], rolledOnPurpose, added, own.Summary.Extra[tpccparams.NewOrders], committed)
	}
	if f := tpcc.FiguresOf(own); math.Abs(f.TPMC*own.Duration.Minutes()-float64(committed)) > 1e-6*float64(committed) {
		t.Errorf("fairbench's tpmC %.1f × %.3f min is not its %d committed New-Orders", f.TPMC, own.Duration.Minutes(), committed)
	}
	named := slices.ContainsFunc(own.Deviations, func(d string) bool { return strings.Contains(d, "go-tpc's tpmC counts the New-Orders rolled back") })
	if named != (rolledOnPurpose > 0) {
		t.Errorf("deviations %q with %d New-Orders rolled back on purpose: want go-tpc's tpmC named exactly when some were", own.Deviations, rolledOnPurpose)
	}
	if afterOwn.newOrder != afterOwn.undelivered {
		t.Errorf("after fairbench: %d new_order rows for %d undelivered orders", afterOwn.newOrder, afterOwn.undelivered)
	}
	checkMix(t, "fairbench", counts)
}
