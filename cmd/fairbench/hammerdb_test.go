package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// A study cell with tool = "hammerdb": HammerDB 4.12's buildschema (1
// warehouse) into a fresh database, then one timed run of 2 virtual users,
// no ramp-up and 1 minute measured (HammerDB's whole minutes), stored as a
// tpcc run with HammerDB's NOPM as its headline and the per-transaction
// figures of its time profile. FAIRBENCH_TEST_HAMMERDB is the directory
// scripts/install-hammerdb.sh prints; the test servers' users need no
// superuser rights (see internal/adapter/hammerdbcmd.go).

func hammerdbStudy(t *testing.T, url, impl string) string {
	t.Helper()
	dir := t.TempDir()
	st := fmt.Sprintf(`[study]
name = "hammerdb"
warmup = "0s"
duration = "1m"

[[target]]
name = "db"
url = %q

[[workload]]
tool = "hammerdb"
warehouses = 1
implementation = %q
clients = [2]
`, url, impl)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hammerdbTmp is a directory for fairbench's temporary directories (its
// TMPDIR) that the test checks is empty afterwards: the private directory
// with the script that holds the password is removed.
func hammerdbTmp(t *testing.T) string {
	return t.TempDir()
}

// watchedHammerDBRun runs the study, its temporary directories in tmp,
// with the command line of every process it starts read while it runs:
// hammerdbcli (and the tclsh it becomes) must run, the password on none
// of them (it is in the private script only). The HammerDB tests run in
// parallel (each a minute of HammerDB's timed run or more), with the demo
// and the fault tests: their processes are watched too, which only widens
// the check (the fault tests give the password in the environment).
func watchedHammerDBRun(t *testing.T, dir string, env []string, tmp, password string) outcome {
	t.Helper()
	stop := testenv.WatchArgv(t, password)
	o := fairbenchEnv(t, dir, append(env, "TMPDIR="+tmp), "run", "study.toml")
	if seen := stop(); !seen["tclsh8.6"] && !seen["hammerdbcli"] {
		t.Errorf("hammerdbcli was never seen running (programs seen: %v): its command line was not checked", seen)
	}
	return o
}

func checkHammerDBRun(t *testing.T, dir, tmp, password string, o outcome, runs int) *result.Run {
	t.Helper()
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	if strings.Contains(o.stderr+o.stdout, password) {
		t.Fatal("the password appears in fairbench's output")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("left in the temporary directory: %s", entries[0].Name())
	}
	stored, err := os.ReadFile(filepath.Join(dir, defaultResults))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored), password) {
		t.Fatal("the stored results hold the password")
	}
	all := runsIn(t, filepath.Join(dir, defaultResults))
	if len(all) != runs {
		t.Fatalf("%d runs, want %d", len(all), runs)
	}
	r := all[len(all)-1]
	if r.Source != "hammerdb" || r.Kind != "tpcc" || r.Status != result.StatusOK || r.Clients != 2 {
		t.Fatalf("run %s %s %s clients %d: %s", r.Source, r.Kind, r.Status, r.Clients, r.Error)
	}
	if r.Summary.Metric == nil || r.Summary.Metric.Name != tpccparams.Headline.Name || r.Summary.Metric.Value <= 0 {
		t.Fatalf("headline %+v", r.Summary.Metric)
	}
	if r.Duration.Minutes() != 1 {
		t.Errorf("duration %v for a 1-minute cell", r.Duration)
	}
	for _, name := range tpccparams.Ops {
		found := false
		for _, op := range r.Ops {
			if op.Name == name {
				found = true
				if op.Count <= 0 || op.Histogram == nil {
					t.Errorf("op %s: count %d, histogram %v", name, op.Count, op.Histogram != nil)
				}
			}
		}
		if !found {
			t.Errorf("no op %s", name)
		}
	}
	cmd, _ := r.Env.Extra["command"].(string)
	if !strings.Contains(cmd, "hammerdbcli auto ") {
		t.Errorf("stored command %q", cmd)
	}
	if !strings.HasPrefix(r.ToolVersion, "hammerdb v4.12") {
		t.Errorf("tool version %q", r.ToolVersion)
	}
	return r
}

func TestStudyRunsHammerDBPostgres(t *testing.T) {
	env := testenv.HammerDB(t)
	t.Parallel()
	pg := testenv.FreshPostgres(t)
	pw := testenv.Password(t, pg)
	dir := hammerdbStudy(t, pg, "procedures")

	// A table fairbench did not make stops the cell before HammerDB's build.
	c := testenv.Connect(t, pg, driver.Options{}).(driver.SQL)
	defer c.Close(t.Context())
	for _, q := range []string{"CREATE TABLE item (i_id int)", "INSERT INTO item VALUES (42)"} {
		if err := c.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	o := fairbenchEnv(t, dir, env, "run", "study.toml")
	if o.code == 0 || !strings.Contains(o.stderr, "fairbench's markers do not say") {
		t.Fatalf("exit %d, want a refusal naming item:\n%s", o.code, o.stderr)
	}
	if n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM item WHERE i_id = 42"); err != nil || n != 1 {
		t.Fatalf("someone else's item table was touched: %d rows, %v", n, err)
	}
	if err := c.Exec(t.Context(), "DROP TABLE item"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, defaultResults))

	tmp := hammerdbTmp(t)
	o = watchedHammerDBRun(t, dir, env, tmp, pw)
	r := checkHammerDBRun(t, dir, tmp, pw, o, 1)
	t.Logf("HammerDB on PostgreSQL, 1 warehouse, 2 VUs, 1 min: NOPM %.0f, %d transactions in the profile", r.Summary.Metric.Value, r.Summary.Transactions)
	if n, err := c.QueryInt64(t.Context(), "SELECT count(*) FROM fairbench_datasets WHERE dataset = 'hammerdb' AND state = 'ready'"); err != nil || n != 1 {
		t.Errorf("hammerdb dataset marker: %d, %v", n, err)
	}

	// Again on the same database: fairbench's own HammerDB tables are
	// dropped and built again.
	o = fairbenchEnv(t, dir, append(env, "TMPDIR="+tmp), "run", "study.toml")
	checkHammerDBRun(t, dir, tmp, pw, o, 2)
	if !strings.Contains(o.stderr+o.stdout, "dropping the hammerdb tables fairbench's previous load made") {
		t.Errorf("the second run did not clear the first load:\n%s", o.stderr)
	}
}

func TestStudyRunsHammerDBMariaDB(t *testing.T) {
	env := testenv.HammerDB(t)
	t.Parallel()
	my := testenv.FreshMySQL(t)
	dir := hammerdbStudy(t, my, "procedures")
	tmp := hammerdbTmp(t)
	o := watchedHammerDBRun(t, dir, env, tmp, testenv.Password(t, my))
	r := checkHammerDBRun(t, dir, tmp, testenv.Password(t, my), o, 1)
	t.Logf("HammerDB on MariaDB, 1 warehouse, 2 VUs, 1 min: NOPM %.0f, %d transactions in the profile", r.Summary.Metric.Value, r.Summary.Transactions)
}
