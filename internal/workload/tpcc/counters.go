package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// serverCounts is the ServerCounts hook, with HammerDB's two
// snapshots: the sum of the districts' next order ids (NOPM) and the
// server's commits plus rollbacks (TPM). PostgreSQL's are the benchmark
// database's only, where HammerDB sums every database's: work in other
// databases does not count in, and a database dropped during the run (its
// counts leave the sum) cannot make TPM fall.
// Backends publish them at most once a second, and when they exit: the final
// read waits for the users' closed sessions to be gone, so it holds all of
// the phase; the first may miss up to a second of the ramp-up's commits,
// which then count in the phase (TPM errs high, never low).
func (in *instance) serverCounts(ctx context.Context, conn driver.Conn, final bool) (map[string]int64, error) {
	c, err := workload.SQLConn("tpcc", conn)
	if err != nil {
		return nil, err
	}
	if final && c.Dialect() == "postgres" {
		waitForClosedBackends(ctx, c)
	}
	orders, err := c.QueryInt64(ctx, "SELECT sum(d_next_o_id) FROM district")
	if err != nil {
		return nil, fmt.Errorf("summing the districts' next order ids: %w", err)
	}
	out := map[string]int64{tpccparams.NewOrders: orders}
	switch c.Dialect() {
	case "postgres":
		n, err := c.QueryInt64(ctx, "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datname = current_database()")
		if err != nil {
			return nil, fmt.Errorf("reading pg_stat_database: %w", err)
		}
		out[tpccparams.ServerTransactions] = n
	case "mysql":
		rows, err := c.Query(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')")
		if err != nil {
			return nil, fmt.Errorf("reading Com_commit and Com_rollback: %w", err)
		}
		var sum int64
		for rows.Next() {
			var name string
			var v int64
			if err := rows.Scan(&name, &v); err != nil {
				rows.Close()
				return nil, err
			}
			sum += v
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		out[tpccparams.ServerTransactions] = sum
	}
	return out, nil
}

// waitForClosedBackends waits, for 2 s at most, until no other client
// backend is connected to this database: the runner has closed the virtual
// users' sessions, and a PostgreSQL backend publishes the commits it has not
// yet reported (it reports at most once a second) when it exits, so the
// final snapshot then holds every transaction of the phase.
func waitForClosedBackends(ctx context.Context, c driver.SQL) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		n, err := c.QueryInt64(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "+
			"AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
		if err != nil || n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bytesPerWarehouse is the size of one warehouse's tables and indexes,
// about 100 MB on PostgreSQL and InnoDB (HammerDB sizes its schemas the
// same way), for the working-set warning.
const bytesPerWarehouse = 100 << 20

func workingSet(v params.Values) (int64, string, bool) {
	w, ok := v[tpccparams.Warehouses].(int64)
	if !ok || w <= 0 {
		return 0, "", false
	}
	return w * bytesPerWarehouse, fmt.Sprintf("%d warehouse(s) × ~100 MB", w), true
}

// dropProcedures removes fairbench's stored routines, if any: on PostgreSQL
// every overload of each name in the current schema.
func dropProcedures(ctx context.Context, c driver.SQL) error {
	var stmts []string
	switch c.Dialect() {
	case "postgres":
		stmts = []string{`DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT p.oid::regprocedure AS sig FROM pg_catalog.pg_proc p
		WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'fairbench\_tpcc\_%' LOOP
		EXECUTE 'DROP FUNCTION ' || r.sig;
	END LOOP;
END $$`}
	case "mysql":
		for _, p := range procNames {
			stmts = append(stmts, "DROP PROCEDURE IF EXISTS "+p)
		}
	}
	for _, q := range stmts {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("dropping fairbench's TPC-C procedures: %w", err)
		}
	}
	return nil
}
