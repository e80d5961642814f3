package adhocline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/workload"
)

// peerLine is one peer tool's command line as its documentation or a
// published article writes it, with the tool's name replaced by
// `fairbench run --workload KIND`, and what fairbench makes of it: the
// target URL and cell, or the error, whose text names what to type.
type peerLine struct {
	kind, line string
	url        string
	clients    int
	threads    int
	duration   time.Duration
	warmup     time.Duration
	action     workload.Action
	params     map[string]any
	note       string // a note the line gives, "" for none
	err        string // the error names this, "" for none
}

// TestPeerLinesAsTyped: each peer's documented lines are accepted with the
// parameters and URL they mean, or refused naming the flag to type.
func TestPeerLinesAsTyped(t *testing.T) {
	presetFile := filepath.Join(t.TempDir(), "workloads", "workloadb")
	if err := os.MkdirAll(filepath.Dir(presetFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(presetFile, []byte("readproportion=0.9\nupdateproportion=0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []peerLine{
		// pgbench (docs and the ARM-vs-x86 article's lines).
		{kind: "tpcb", line: "-c 10 -j 2 -T 60 -S -h 127.0.0.1 -p 5432 -U postgres bench",
			url: "postgres://postgres@127.0.0.1:5432/bench", clients: 10, threads: 2, duration: 60 * time.Second,
			params: map[string]any{"mode": "select-only"}},
		{kind: "tpcb", line: "-i -s 100 -h 127.0.0.1 -U bench bench", url: "postgres://bench@127.0.0.1/bench",
			action: workload.ActionLoad, params: map[string]any{"scale": int64(100)}},
		{kind: "tpcb", line: "-c 8 -j 8 -T 300 -N -M prepared -P 5 -h10.0.0.5 -U bench pgdb",
			url: "postgres://bench@10.0.0.5/pgdb", clients: 8, threads: 8, duration: 300 * time.Second,
			params: map[string]any{"mode": "simple-update", "query_mode": "prepared"}},
		{kind: "tpcb", line: "-c 4 -T 10 bench", url: "postgres://localhost/bench", clients: 4, duration: 10 * time.Second},
		{kind: "tpcb", line: "-c 4 --target postgres://x@127.0.0.1/bench -h 127.0.0.1", err: "--target and --host"},
		{kind: "tpcb", line: "-c 4 -p 99999 bench", err: "-p/--port"},
		{kind: "tpcb", line: "-c 4 bench other", err: "give one positional name"},
		// sysbench 1.0's lines.
		{kind: "oltp", line: "oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=sbtest " +
			"--pgsql-password=sekrit99 --pgsql-db=sbtest --threads=16 --time=60 run",
			url: "postgres://sbtest:sekrit99@127.0.0.1:5432/sbtest", clients: 16, duration: 60 * time.Second,
			action: workload.ActionRun, params: map[string]any{"mode": "read_write"}},
		{kind: "oltp", line: "oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-db=bench --tables=10 --table-size=100000 prepare",
			url: "mysql://root@127.0.0.1:3306/bench", action: workload.ActionLoad,
			params: map[string]any{"mode": "read_only", "tables": int64(10), "table_size": int64(100000)}},
		{kind: "oltp", line: "oltp_point_select --mysql-host=db1 --threads=4 --time=30 run", url: "mysql://sbtest@db1:3306/sbtest",
			clients: 4, duration: 30 * time.Second, action: workload.ActionRun, params: map[string]any{"mode": "point_select"}},
		{kind: "oltp", line: "oltp_read_write --db-driver=mysql --pgsql-host=127.0.0.1 run", err: "--mysql-host"},
		{kind: "oltp", line: "oltp_read_write --db-driver=oracle run", err: "mysql or pgsql"},
		// memtier_benchmark's and redis-benchmark's lines.
		{kind: "kv", line: "-s 127.0.0.1 -p 6379 --protocol=redis -t 4 -c 50 --ratio=1:10 --pipeline=16 --hide-histogram",
			url: "redis://127.0.0.1:6379/0", clients: 200, threads: 4, duration: 60 * time.Second,
			params: map[string]any{"ratio": "1:10", "pipeline": int64(16)}, note: "--hide-histogram: accepted, no effect"},
		{kind: "kv", line: "-s 127.0.0.1 --protocol resp3 -t 1 -c 1 --test-time 5", url: "redis://127.0.0.1:6379/0",
			clients: 1, threads: 1, duration: 5 * time.Second, note: "RESP2"},
		{kind: "kv", line: "-s 127.0.0.1 --protocol=memcache_text", err: "Redis protocol only"},
		{kind: "kv", line: "-h 127.0.0.1 -p 6379 -c 50 -n 100000 -P 16 -t set -q", url: "redis://127.0.0.1:6379/0",
			clients: 50, threads: 1, params: map[string]any{"pipeline": int64(16), "pipeline_mode": "batch", "ratio": "1:0", "requests": int64(2000)}},
		{kind: "kv", line: "-h 127.0.0.1 -P 16 -t get -n 1000 -c 3", url: "redis://127.0.0.1:6379/0", clients: 3, threads: 1,
			params: map[string]any{"ratio": "0:1", "requests": int64(334)}, note: "334 requests each"},
		{kind: "kv", line: "-h 127.0.0.1 -P 16 -t set,get -n 100000 -q", err: "-t set, then -t get"},
		{kind: "kv", line: "-h 127.0.0.1 -t lpush -n 1000", err: "-t set or -t get"},
		// YCSB's lines, written in YCSB's own directory.
		{kind: "ycsb", line: "run -P workloads/workloada -threads 8 --target redis://127.0.0.1:6379/0", url: "redis://127.0.0.1:6379/0",
			clients: 8, action: workload.ActionRun, params: map[string]any{"workload": "a"}, note: "--preset a"},
		{kind: "ycsb", line: "run -P " + presetFile + " --target redis://127.0.0.1:6379/0", url: "redis://127.0.0.1:6379/0",
			clients: 1, action: workload.ActionRun, params: map[string]any{"property_files": []string{presetFile}}},
		// HammerDB's diset tpcc names.
		{kind: "tpcc", line: "--target sqlite:tpcc.db --set count_ware=10 --set num_vu=8 --set rampup=2 --set duration=5 --set allwarehouse=true --set keyandthink=false",
			url: "sqlite:tpcc.db", clients: 8, duration: 5 * time.Minute, warmup: 2 * time.Minute,
			params: map[string]any{"warehouses": int64(10), "all_warehouses": true}},
		{kind: "tpcc", line: "--target sqlite:tpcc.db --set pg_count_ware=4", url: "sqlite:tpcc.db", clients: 1, warmup: 2 * time.Minute,
			params: map[string]any{"warehouses": int64(4)}},
		{kind: "tpcc", line: "--target sqlite:tpcc.db --set pg_host=10.0.0.5", err: "--target URL"},
		{kind: "tpcc", line: "--target sqlite:tpcc.db --set num_vu=lots", err: "--vus"},
		{kind: "tpcc", line: "--target sqlite:tpcc.db --set raiseerror=true", err: "settings it takes are allwarehouse, count_ware, duration, keyandthink, num_vu, rampup"},
	}
	for _, l := range lines {
		t.Run(l.kind+" "+l.line, func(t *testing.T) {
			p, err := adhocline.Parse(append([]string{"--workload", l.kind}, strings.Fields(l.line)...))
			if l.err != "" {
				if err == nil || !strings.Contains(err.Error(), l.err) {
					t.Fatalf("error %v, want one naming %q", err, l.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := p.Cell.Study.Workloads[0]
			if p.Target != l.url || p.Cell.Study.Targets[0].URL != l.url {
				t.Errorf("target %q (study's %q), want %q", p.Target, p.Cell.Study.Targets[0].URL, l.url)
			}
			if l.clients != 0 && w.Clients[0].N != l.clients {
				t.Errorf("clients %d, want %d", w.Clients[0].N, l.clients)
			}
			if w.Threads != l.threads {
				t.Errorf("threads %d, want %d", w.Threads, l.threads)
			}
			if l.duration != 0 && p.Cell.Study.Duration != l.duration {
				t.Errorf("duration %s, want %s", p.Cell.Study.Duration, l.duration)
			}
			if p.Cell.Study.Warmup != l.warmup {
				t.Errorf("warm-up %s, want %s", p.Cell.Study.Warmup, l.warmup)
			}
			if p.Action != l.action {
				t.Errorf("action %q, want %q", p.Action, l.action)
			}
			for k, want := range l.params {
				got := w.Params[k]
				if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
					t.Errorf("parameter %s = %v, want %v", k, got, want)
				}
			}
			notes := strings.Join(p.Notes, "\n")
			if (l.note == "") != (notes == "") || !strings.Contains(notes, l.note) {
				t.Errorf("notes %q, want one saying %q", notes, l.note)
			}
			if strings.Contains(p.Cell.Study.Targets[0].Name, "sekrit99") {
				t.Errorf("the target's name shows the password: %q", p.Cell.Study.Targets[0].Name)
			}
		})
	}
}

// TestPgbenchDashHIsHostOnlyBeforeAValue: within a tpcb line, -h followed
// by a value is pgbench's host, and -h alone or before another flag stays
// fairbench's help.
func TestPgbenchDashHIsHostOnlyBeforeAValue(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	if _, err := adhocline.Define(fs, "tpcb", true); err != nil {
		t.Fatal(err)
	}
	cl := adhocline.CommandLineOf("tpcb")
	for _, c := range []struct{ in, want string }{
		{"-h", "-h"},
		{"-h -c 4", "-h -c 4"},
		{"-h db1 -c 4", "--host db1 -c 4"},
		{"-hdb1", "--host=db1"},
		{"-c 4 -S bench", "-c 4 -S --dbname=bench"},
		{"-c 4 study.toml", "-c 4 study.toml"},
	} {
		p, err := adhocline.PeerLine(strings.Fields(c.in), cl, fs)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := strings.Join(p.Args, " "); got != c.want {
			t.Errorf("%q read as %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPgbenchPasswordFromEnvironmentNotURL: pgbench's password is
// PGPASSWORD's, which the driver reads; the URL the line builds holds none.
func TestPgbenchPasswordFromEnvironmentNotURL(t *testing.T) {
	t.Setenv("PGPASSWORD", "envsecret42")
	p, err := adhocline.Parse(strings.Fields("--workload tpcb -S -h 127.0.0.1 -U bench bench"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Target, "envsecret42") || strings.Contains(p.Target, ":@") {
		t.Errorf("the URL holds the password: %q", p.Target)
	}
}
