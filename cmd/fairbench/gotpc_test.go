package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// A study cell with tool = "go-tpc": go-tpc tpcc prepare (1 warehouse) into
// a fresh database, a warm-up run, then go-tpc tpcc run for the cell's
// duration, stored as a tpcc run with NOPM (go-tpc's tpmC) as its headline.
// FAIRBENCH_TEST_GOTPC is the binary scripts/install-go-tpc.sh builds.

func goTPCStudy(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	st := fmt.Sprintf(`[study]
name = "gotpc"
warmup = "2s"
duration = "6s"

[[target]]
name = "db"
url = %q

[[workload]]
tool = "go-tpc"
warehouses = 1
clients = [2]
`, url)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkGoTPCRun(t *testing.T, dir, password string, o outcome) *result.Run {
	t.Helper()
	if strings.Contains(o.stderr+o.stdout, password) {
		t.Fatal("the password appears in fairbench's output")
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Source != "go-tpc" || r.Kind != "tpcc" || r.Status != result.StatusOK || r.Clients != 2 {
		t.Fatalf("run %s %s %s clients %d: %s", r.Source, r.Kind, r.Status, r.Clients, r.Error)
	}
	if r.Summary.Metric == nil || r.Summary.Metric.Name != tpccparams.Headline.Name || r.Summary.Metric.Value <= 0 {
		t.Fatalf("headline %+v", r.Summary.Metric)
	}
	nopm := tpccparams.Headline.Measure(r.Ops, r.Summary.Extra, r.Duration, nil, nil)
	if d := nopm - r.Summary.Metric.Value; d > 1e-6*nopm || d < -1e-6*nopm {
		t.Errorf("NOPM from the counter %g, headline %g", nopm, r.Summary.Metric.Value)
	}
	// go-tpc runs for its --time; a busy machine can only make it longer (no upper bound but
	// a generous one: the suite must pass on a loaded machine).
	if r.Duration.Seconds() < 5 || r.Duration > time.Minute {
		t.Errorf("duration %v for a 6 s cell", r.Duration)
	}
	var total int64
	for _, name := range tpccparams.Ops {
		found := false
		for _, op := range r.Ops {
			if op.Name == name {
				found = true
				total += op.Count
				if op.Count <= 0 || op.Histogram == nil {
					t.Errorf("op %s: count %d, histogram %v", name, op.Count, op.Histogram != nil)
				}
			}
		}
		if !found {
			t.Errorf("no op %s in %d s of TPC-C", name, 6)
		}
	}
	if total != r.Summary.Transactions || len(r.Series) < 3 {
		t.Errorf("transactions %d (ops %d), %d series points", r.Summary.Transactions, total, len(r.Series))
	}
	cmd, _ := r.Env.Extra["command"].(string)
	if !strings.Contains(cmd, "go-tpc tpcc run --warehouses 1 ") || !strings.Contains(cmd, "-T 2 --time 6s") || strings.Contains(cmd, password) {
		t.Errorf("stored command %q", cmd)
	}
	if !strings.Contains(strings.Join(r.Deviations, "\n"), "not NOPM read from the districts") {
		t.Errorf("deviations %q", r.Deviations)
	}
	return r
}

func TestStudyRunsGoTPCPostgres(t *testing.T) {
	testenv.GoTPC(t)
	pg := testenv.FreshPostgres(t)
	dir := goTPCStudy(t, pg)

	// A table of go-tpc's name that fairbench did not make stops the cell
	// before go-tpc's prepare (--dropdata) could drop it.
	c := testenv.Connect(t, pg, driver.Options{}).(driver.SQL)
	defer c.Close(t.Context())
	for _, q := range []string{"CREATE TABLE item (i_id int)", "INSERT INTO item VALUES (42)"} {
		if err := c.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code == 0 || !strings.Contains(o.stderr, "a table item that fairbench did not create") || !strings.Contains(o.stderr, "--replace") {
		t.Fatalf("exit %d, want a refusal naming item:\n%s", o.code, o.stderr)
	}
	if n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM item WHERE i_id = 42"); err != nil || n != 1 {
		t.Fatalf("someone else's item table was touched: %d rows, %v", n, err)
	}
	if err := c.Exec(t.Context(), "DROP TABLE item"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, defaultResults))

	o = fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	r := checkGoTPCRun(t, dir, testenv.Password(t, pg), o)
	// go-tpc prepare loaded 100 000 items and 10 districts, and fairbench's
	// marker claims its nine tables.
	if n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM item"); err != nil || n != 100000 {
		t.Errorf("item: %d rows, %v", n, err)
	}
	if n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM fairbench_datasets WHERE dataset = 'go-tpc' AND state = 'ready'"); err != nil || n != 1 {
		t.Errorf("go-tpc dataset marker: %d, %v", n, err)
	}
	t.Logf("go-tpc on PostgreSQL, 1 warehouse, 2 clients, 6 s: NOPM (tpmC) %.0f, %d transactions", r.Summary.Metric.Value, r.Summary.Transactions)
	o = fairbench(t, dir, "report")
	if o.code != 0 || !strings.Contains(o.stdout, "go-tpc") && !strings.Contains(o.stdout, "tpcc") {
		t.Fatalf("report:\n%s\n%s", o.stdout, o.stderr)
	}
}
