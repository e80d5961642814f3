package adapter

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// fakeHammerDB puts an empty hammerdbcli first on the PATH and returns its
// directory.
func fakeHammerDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hammerdbcli"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// hdbScript builds and returns the script's lines, checking the command
// around it.
func hdbScript(t *testing.T, home string, inv Invocation, password string) []string {
	t.Helper()
	inv.LogDir = t.TempDir()
	c, err := buildHammerDB(inv)
	if err != nil {
		t.Fatal(err)
	}
	return checkHDBCommand(t, home, inv.LogDir, c, password)
}

func checkHDBCommand(t *testing.T, home, logDir string, c Command, password string) []string {
	t.Helper()
	script := filepath.Join(logDir, hammerdbScript)
	eq(t, "argv", strings.Join(c.Argv, " "), filepath.Join(home, "hammerdbcli")+" auto "+script)
	eq(t, "dir", c.Dir, home)
	for _, e := range []string{"TMP=" + logDir, "TCLLIBPATH=" + filepath.Join(home, "lib")} {
		if !slices.Contains(c.Env, e) {
			t.Errorf("env %q lacks %s", c.Env, e)
		}
	}
	if password != "" && strings.Contains(strings.Join(append(c.Argv, c.Env...), " "), password) {
		t.Errorf("the password is on the command line or in the environment: %q %q", c.Argv, c.Env)
	}
	st, err := os.Stat(script)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("script mode %v, want 0600", st.Mode().Perm())
	}
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	// The password only where diset's echo is silenced.
	silenced := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "rename putscli fairbench_putscli"):
			silenced = true
		case strings.HasPrefix(l, "rename putscli {}"):
			silenced = false
		case password != "" && strings.Contains(l, password) && !silenced:
			t.Errorf("the password is in a line whose echo is not silenced: %q", l)
		}
	}
	return lines
}

func hasLines(t *testing.T, lines []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(lines, w) {
			t.Errorf("the script lacks %q:\n%s", w, strings.Join(lines, "\n"))
		}
	}
}

func TestHammerDBToolIsRunnable(t *testing.T) {
	tool, ok := Lookup("hammerdb")
	if !ok || tool.Build == nil || tool.Load == nil || tool.AttachLogDir == nil || !tool.OwnWarmup {
		t.Fatal("hammerdb is not runnable")
	}
	eq(t, "kind", tool.Kind, "tpcc")
	eq(t, "executable", tool.Executable(), "hammerdbcli")
	if !strings.Contains(tool.Install, "scripts/install-hammerdb.sh") {
		t.Errorf("install: %s", tool.Install)
	}
}

func TestBuildHammerDBPostgres(t *testing.T) {
	home := fakeHammerDB(t)
	inv := tpccInv(t, "postgres://bench:s3cret@db.example:5433/tpcc?sslmode=require", 3,
		map[string]any{"warehouses": 4, "all_warehouses": true, "keying_thinking": true, "implementation": "procedures"})
	inv.Duration, inv.Warmup = 2*time.Minute, time.Minute
	lines := hdbScript(t, home, inv, "s3cret")
	hasLines(t, lines,
		"dbset db pg", "dbset bm TPC-C",
		"diset connection pg_host db.example", "diset connection pg_port 5433", "diset connection pg_sslmode require",
		"diset tpcc pg_superuser bench", "diset tpcc pg_user bench", "diset tpcc pg_dbase tpcc", "diset tpcc pg_defaultdbase tpcc",
		"diset tpcc pg_superuserpass {s3cret}", "diset tpcc pg_pass {s3cret}",
		"diset tpcc pg_storedprocs false", "diset tpcc pg_count_ware 4",
		"diset tpcc pg_driver timed", "diset tpcc pg_rampup 1", "diset tpcc pg_duration 2",
		"diset tpcc pg_allwarehouse true", "diset tpcc pg_keyandthink true", "diset tpcc pg_timeprofile true",
		"diset tpcc pg_raiseerror false", "diset tpcc pg_vacuum false",
		"loadscript", "vuset vu 3", "vucreate", "set jobid [ lindex [ split [ vurun ] = ] end ]",
		"if {![vucomplete]} { _runtimer 300 }", "vudestroy", "puts [ jobs $jobid timing ]")

	// Defaults: sslmode prefer, ramp-up 0, one home warehouse per user.
	inv = tpccInv(t, "postgres://bench:pw@127.0.0.1/bench", 2, map[string]any{"implementation": "procedures"})
	inv.Duration = time.Minute
	lines = hdbScript(t, home, inv, "pw")
	hasLines(t, lines, "diset connection pg_port 5432", "diset connection pg_sslmode prefer", "diset tpcc pg_rampup 0",
		"diset tpcc pg_duration 1", "diset tpcc pg_allwarehouse false", "diset tpcc pg_keyandthink false", "diset tpcc pg_count_ware 1")

	// The runner's check before a study (no directory) writes nothing.
	c, err := buildHammerDB(inv)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "script without a directory", c.Argv[2], hammerdbScript)
	if _, err := os.Stat(hammerdbScript); err == nil {
		t.Error("the check wrote a script into the working directory")
	}
}

func TestBuildHammerDBMySQL(t *testing.T) {
	home := fakeHammerDB(t)
	inv := tpccInv(t, "mysql://root:my-pw@127.0.0.1:3310/tpcc", 2, map[string]any{"implementation": "procedures"})
	inv.Duration = time.Minute
	lines := hdbScript(t, home, inv, "my-pw")
	hasLines(t, lines, "dbset db mysql", "diset connection mysql_host 127.0.0.1", "diset connection mysql_port 3310",
		"diset connection mysql_socket null", "diset connection mysql_ssl false", "diset tpcc mysql_user root",
		"diset tpcc mysql_pass {my-pw}", "diset tpcc mysql_dbase tpcc", "diset tpcc mysql_no_stored_procs false",
		"diset tpcc mysql_driver timed", "diset tpcc mysql_rampup 0", "diset tpcc mysql_duration 1",
		"diset tpcc mysql_timeprofile true", "vuset vu 2")
	for _, l := range lines {
		if strings.HasPrefix(l, "diset tpcc pg_") {
			t.Errorf("a PostgreSQL setting in a MySQL script: %s", l)
		}
	}
	// implementation = client: HammerDB's mode without stored procedures.
	inv = tpccInv(t, "mysql://bench@db.example/bench", 4, nil)
	inv.Duration = 3 * time.Minute
	lines = hdbScript(t, home, inv, "")
	hasLines(t, lines, "diset tpcc mysql_no_stored_procs true", "diset connection mysql_port 3306", "diset tpcc mysql_pass {}",
		"diset tpcc mysql_duration 3", "vuset vu 4")
}

func TestBuildHammerDBRefuses(t *testing.T) {
	fakeHammerDB(t)
	pg := "postgres://bench:pw@127.0.0.1/bench"
	for _, c := range []struct {
		name, url string
		set       map[string]any
		edit      func(*Invocation)
		want      string
	}{
		{"client on PostgreSQL", pg, map[string]any{"implementation": "client"}, nil, "no client-side mode"},
		{"seconds", pg, nil, func(i *Invocation) { i.Duration = 90 * time.Second }, "whole minutes"},
		{"short", pg, nil, func(i *Invocation) { i.Duration = 30 * time.Second }, "whole minutes"},
		{"warm-up seconds", pg, nil, func(i *Invocation) { i.Warmup = 30 * time.Second }, "ramp-up"},
		{"no password", "postgres://bench@127.0.0.1/bench", nil, nil, "need the password"},
		{"odd password", "postgres://bench:a%20b@127.0.0.1/bench", nil, nil, "spaces, quotes"},
		{"quote", "mysql://bench:it's@127.0.0.1/bench", nil, nil, "spaces, quotes"},
		{"database name", "postgres://bench:pw@127.0.0.1/my%20db", nil, nil, "the database"},
		{"seed", pg, map[string]any{"seed": 7}, nil, "seed = 7"},
		{"rate", pg, nil, func(i *Invocation) { i.Rate = 100 }, "no target rate"},
		{"threads", pg, nil, func(i *Invocation) { i.Threads = 1 }, "one thread per virtual user"},
		{"sqlite", "sqlite:///tmp/x.db", nil, nil, "postgres:// or mysql://"},
		{"tls", "mysql://bench:pw@127.0.0.1/bench?tls=true", nil, nil, "without TLS"},
		{"pg parameter", pg + "?connect_timeout=5", nil, nil, "understand sslmode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]any{"implementation": "procedures"}
			for k, v := range c.set {
				set[k] = v
			}
			inv := tpccInv(t, c.url, 2, set)
			inv.Duration = time.Minute
			inv.LogDir = t.TempDir()
			if c.edit != nil {
				c.edit(&inv)
			}
			_, err := buildHammerDB(inv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if entries, _ := os.ReadDir(inv.LogDir); len(entries) > 0 {
				t.Errorf("a refused cell wrote %s", entries[0].Name())
			}
		})
	}
}

func TestBuildHammerDBNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	inv := tpccInv(t, "postgres://bench:pw@127.0.0.1/bench", 2, map[string]any{"implementation": "procedures"})
	inv.Duration = time.Minute
	if _, err := buildHammerDB(inv); err == nil || !strings.Contains(err.Error(), "scripts/install-hammerdb.sh") {
		t.Fatalf("error %v", err)
	}
}

func TestLoadHammerDB(t *testing.T) {
	home := fakeHammerDB(t)
	inv := tpccInv(t, "postgres://bench:s3cret@127.0.0.1/bench", 8,
		map[string]any{"warehouses": 3, "load_workers": 8, "implementation": "procedures"})
	inv.LogDir = t.TempDir()
	l, err := loadHammerDB(inv)
	if err != nil {
		t.Fatal(err)
	}
	lines := checkHDBCommand(t, home, inv.LogDir, l.Command, "s3cret")
	hasLines(t, lines, "dbset db pg", "diset tpcc pg_count_ware 3", "diset tpcc pg_num_vu 3", "diset tpcc pg_pass {s3cret}",
		"diset tpcc pg_storedprocs false", "buildschema")
	if !l.WholeDatabase || l.Dataset != "hammerdb" || l.Params != "warehouses=3" || len(l.Tables) != 9 {
		t.Errorf("load %+v", l)
	}
	for _, d := range []string{"postgres", "mysql"} {
		if len(l.Clear[d]) == 0 {
			t.Errorf("no statements clearing a %s database", d)
		}
	}
	if !strings.Contains(strings.Join(l.Clear["mysql"], ";"), "DROP PROCEDURE IF EXISTS neword") {
		t.Errorf("MySQL clear %q", l.Clear["mysql"])
	}
	if err := l.Check(readFixture(t, "hammerdb/refused/pg_build.out")); err != nil {
		t.Errorf("the real build output: %v", err)
	}
	if err := l.Check("Vuser 1:CREATING TPCC STORED PROCEDURES\n\rVuser 1:FBTEST_536D SCHEMA COMPLETE\nVuser 1:FINISHED SUCCESS\n"); err != nil {
		t.Errorf("MariaDB's build output: %v", err)
	}
	for _, bad := range []string{
		"Vuser 1:CREATING TPCC SCHEMA\nVuser 1:Error: Database bench exists but is not empty, specify a new or empty database name\nVuser 1:FINISHED FAILED\n",
		"Vuser 1:CREATING TPCC SCHEMA\nVuser 1:Loading Item\n",
	} {
		if err := l.Check(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	inv.LogDir = ""
	if _, err := loadHammerDB(inv); err == nil {
		t.Error("a load without a private directory")
	}
}

// The run keeps no password hammerdbcli echoes, and the time profile comes
// from the run's directory.
func TestHammerDBRunKeepsNoPassword(t *testing.T) {
	out := readFixture(t, "hammerdb/pg15-3vu/pg_run.out")
	runs, err := parseHammerDB("pg_run.out", out)
	if err != nil {
		t.Fatal(err)
	}
	settings := runs[0].Env.Extra["hammerdb"].(map[string]any)["settings"].(map[string]string)
	for _, k := range []string{"pg_pass", "pg_superuserpass"} {
		eq(t, k, settings[k], "(not kept)")
	}
	eq(t, "count_ware kept", settings["pg_count_ware"], "1")

	dir := t.TempDir()
	if err := attachHammerDBLogDir(runs, dir); err != nil {
		t.Errorf("no time profile, but the job timing in the output: %v", err)
	}
	noOps := *runs[0]
	noOps.Ops = nil
	if err := attachHammerDBLogDir([]*result.Run{&noOps}, dir); err == nil {
		t.Error("no time profile and no job timing: accepted")
	}
	prof := readFixture(t, "hammerdb/pg15-3vu/hdbxtprofile.log")
	if err := os.WriteFile(filepath.Join(dir, "hdbxtprofile.log"), []byte(prof), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := attachHammerDBLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	if len(runs[0].Ops) != 5 || runs[0].Summary.Transactions <= 0 {
		t.Errorf("ops %d, transactions %d", len(runs[0].Ops), runs[0].Summary.Transactions)
	}
}
