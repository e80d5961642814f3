package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// env --study shows a declared price as written: 0.0151 an hour is not 0.02.
func TestEnvStudyKeepsASmallPrice(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(file, []byte(`[study]
name = "price"
[[target]]
name = "small"
url = "postgres://bench@10.0.0.1/bench"
price_per_hour = 0.0151
[[workload]]
kind = "tpcb"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "env", "--study", file)
	if o.code != 0 {
		t.Fatalf("env --study: exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "price_per_hour: 0.0151") {
		t.Errorf("price not shown as declared:\n%s", o.stdout)
	}
}

// validate accepts docs/tools.md's fio target, file:///dir, which run accepts:
// no driver speaks it, the tool does. A bad URL for the tool is still refused.
func TestValidateAcceptsFioFileTarget(t *testing.T) {
	dir := t.TempDir()
	study := func(url string) string {
		file := filepath.Join(dir, "fio.toml")
		if err := os.WriteFile(file, []byte(`[study]
name = "fio"
[[target]]
name = "ssd"
url = "`+url+`" # fio targets are directories

[[workload]]
tool = "fio"
preset = ["randrw", "seqread", "seqwrite"]
size = "4G"
clients = [4]
targets = ["ssd"]
`), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	o := fairbench(t, dir, "validate", study("file://"+dir))
	if o.code != 0 || !strings.Contains(o.stdout, "3 cells") {
		t.Errorf("validate refused the fio file:// target: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "validate", study("postgres://bench@127.0.0.1/bench"))
	if o.code == 0 {
		t.Errorf("validate accepted a postgres:// target for fio:\n%s", o.stdout)
	}
}

// Every fairbench command an example's header tells users to run is one the
// binary knows, with flags it knows (the valkey example once said
// `report --html`). run is left out: it would run the study.
func TestExampleHeaderCommandsParse(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	dir := t.TempDir()
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			for _, part := range strings.Split(strings.TrimLeft(line, "# "), "&&") {
				args := strings.Fields(part)
				if len(args) < 2 || args[0] != "fairbench" || args[1] == "run" {
					continue
				}
				for i, a := range args {
					if strings.HasPrefix(a, "examples/") {
						if args[i], err = filepath.Abs(filepath.Join("../..", a)); err != nil {
							t.Fatal(err)
						}
					}
				}
				checked++
				o := fairbench(t, dir, args[1:]...)
				for _, bad := range []string{"unknown flag", "unknown command", "unknown shorthand"} {
					if strings.Contains(o.stderr, bad) {
						t.Errorf("%s: %q: %s", filepath.Base(f), strings.Join(args, " "), o.stderr)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no command found in the examples' headers")
	}
}

// A study cell with tool = "mysqlslap" runs the real mysqlslap at each
// concurrency against the test MariaDB, in a schema of its own, and the
// report shows the seconds mysqlslap printed per concurrency.
func TestStudyRunsMysqlslapPerConcurrency(t *testing.T) {
	testenv.Tool(t, "mysqlslap")
	url := testenv.FreshMySQL(t)
	db := url[strings.LastIndex(url, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	dir := t.TempDir()
	st := fmt.Sprintf(`[study]
name = "slap"
duration = "1s"

[[target]]
name = "mariadb"
url = %q

[[workload]]
tool = "mysqlslap"
queries = 200
iterations = 2
schema = %q
clients = [1, 4]
`, url, db+"_slap")
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per concurrency", len(runs))
	}
	for _, r := range runs {
		if r.Source != "mysqlslap" || r.Status != result.StatusOK || r.Summary.Transactions <= 0 {
			t.Errorf("run at %d clients: %s %s, %d queries: %s", r.Clients, r.Source, r.Status, r.Summary.Transactions, r.Error)
		}
	}
	o = fairbench(t, dir, "report", "--format", "md")
	if o.code != 0 {
		t.Fatalf("report: %s", o.stderr)
	}
	for _, want := range []string{"seconds to run all queries per concurrency", "| target | concurrency | average s | minimum s | maximum s |", "| mariadb | 1 |", "| mariadb | 4 |"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, o.stdout)
		}
	}
	// The schema is refused when it is the target's database, which mysqlslap would drop.
	bad := strings.Replace(st, db+"_slap", db, 1)
	if err := os.WriteFile(filepath.Join(dir, "bad.toml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "validate", "bad.toml"); o.code == 0 || !strings.Contains(o.stderr, "drops its schema") {
		t.Errorf("validate accepted mysqlslap on the target's own database: %d %s", o.code, o.stderr)
	}
}

// The VM-versus-Kubernetes article shows a disk's fio numbers and the
// database's pgbench numbers together: one study with a fio cell on a
// file:/// directory and a pgbench cell on PostgreSQL validates, runs, and
// gives one report with both, fio's with p95 beside p99 and p99.9.
func TestFioAndPgbenchInOneStudyAndReport(t *testing.T) {
	for _, tool := range []string{"fio", "pgbench"} {
		testenv.Tool(t, tool)
	}
	pg := testenv.FreshPostgres(t)
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	st := fmt.Sprintf(`[study]
name = "disk and database"
warmup = "0s"
duration = "1s"

[[target]]
name = "vm-disk"
url = "file://%s"

[[target]]
name = "vm-pg"
url = %q

[[workload]]
tool = "fio"
preset = "randrw"
size = "8M"
direct = false
ioengine = "psync"
clients = [1]
targets = ["vm-disk"]

[[workload]]
tool = "pgbench"
mode = "select-only"
scale = 1
clients = [1]
targets = ["vm-pg"]
`, disk, pg)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "validate", "study.toml"); o.code != 0 {
		t.Fatalf("validate: %s", o.stderr)
	}
	if o := fairbench(t, dir, "run", "study.toml"); o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	o := fairbench(t, dir, "report", "--format", "md")
	if o.code != 0 {
		t.Fatalf("report: %s", o.stderr)
	}
	for _, want := range []string{"Completion latency (clat)", "read p95", "write p99.9", "| vm-disk |", "| vm-pg |", "tps"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, o.stdout)
		}
	}
}

// A study whose SET-only workload writes a key range and whose GET workload
// then prefills a wider range of other-sized values under the same prefix,
// in two repetition rounds: the keys one workload wrote are the study's own,
// so the other's prefill rewrites them, and the SETs of the second round
// write over the prefill, instead of either refusing them as foreign (issue
// 38 item 13).
func TestKVStudySetThenGetOnOnePrefix(t *testing.T) {
	url := testenv.RedisURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	dir := t.TempDir()
	st := fmt.Sprintf(`[study]
name = "set then get"
warmup = "0s"
duration = "1s"
repetitions = 2

[[target]]
name = "redis"
url = %q

[[workload]]
name = "sets"
kind = "kv"
ratio = "1:0"
key_prefix = %q
key_maximum = 999
data_size = 32
clients = [2]

[[workload]]
name = "gets"
kind = "kv"
ratio = "0:1"
prefill = true
key_prefix = %q
key_maximum = 1999
data_size = 64
clients = [2]
`, url, prefix, prefix)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 4 {
		t.Fatalf("%d runs, want the SET workload's and the GET workload's, twice", len(runs))
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Summary.Transactions == 0 {
			t.Errorf("%s: %s, %d operations: %s", r.Workload, r.Status, r.Summary.Transactions, r.Error)
		}
	}
}
