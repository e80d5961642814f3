package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// serverViewStudy is targets on one server whose sessions differ by one
// setting, each sampled every 100 ms so that two seconds give shares.
func serverViewStudy(name string, targets [][2]string, clients int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[study]\nname = %q\nrepetitions = 1\nwarmup = \"0s\"\nduration = \"2s\"\ncooldown = \"0s\"\n", name)
	for _, t := range targets {
		fmt.Fprintf(&b, "\n[[target]]\nname = %q\nurl = %q\nserver_view = \"100ms\"\n", t[0], t[1])
	}
	fmt.Fprintf(&b, "\n[[workload]]\nkind = \"tpcb\"\nmode = \"tpcb-like\"\nscale = 4\nclients = %d\n", clients)
	return b.String()
}

// The acceptance of the server view on PostgreSQL: with synchronous_commit
// on, the sessions wait on the WAL's flush; with it off they do not, and the
// report says so in its findings and in the cell's Server view table. Eight
// clients, so that even the sessions of sync-off, mostly idle between
// statements, are active in enough samples to compare.
func TestServerViewShowsWALWaitsOfSynchronousCommit(t *testing.T) {
	endToEnd(t)
	url := testenv.FreshPostgres(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	dir := t.TempDir()
	study := serverViewStudy("sync", [][2]string{
		{"sync-on", url + sep + "options=-c%20synchronous_commit%3Don"},
		{"sync-off", url + sep + "options=-c%20synchronous_commit%3Doff"},
	}, 8)
	if err := os.WriteFile(filepath.Join(dir, "sync.toml"), []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "run", "sync.toml"); o.code != 0 {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	o := fairbench(t, dir, "report")
	if o.code != 0 {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	finding := regexp.MustCompile(`tpcb, 8 clients: sync-on sessions waited on (IO|LWLock):WAL\w+ in \d+ % of samples, sync-off in \d+ %`)
	if !finding.MatchString(o.stdout) {
		t.Errorf("no finding of sync-on's WAL waits:\n%s", o.stdout)
	}
	for _, want := range []string{"Server view", "wait IO:WALSync", "pg_stat_wal.wal_bytes", "bytes/s", "buffer hit ratio"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the report has no %q", want)
		}
	}
}

// On MariaDB the same table shows InnoDB's own counters, and says once what
// performance_schema would add when it is off.
func TestServerViewShowsInnoDBOnMariaDB(t *testing.T) {
	endToEnd(t)
	url := testenv.FreshMySQL(t)
	dir := t.TempDir()
	study := serverViewStudy("maria", [][2]string{{"maria", url}}, 2)
	study = strings.Replace(study, `duration = "2s"`, `duration = "1s"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "maria.toml"), []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := fairbench(t, dir, "run", "maria.toml"); o.code != 0 {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	o := fairbench(t, dir, "report", "--format", "md")
	if o.code != 0 {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	for _, want := range []string{"### Server view", "| status.Innodb_os_log_written | bytes/s |", "| status.Innodb_buffer_pool_read_requests | /s |"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the report has no %q:\n%s", want, o.stdout)
		}
	}
	ps := strings.Count(o.stdout, "performance_schema=ON")
	if on := strings.Contains(o.stdout, "performance_schema."); ps != 1 && !on {
		t.Errorf("performance_schema is off and the report says so %d times, want once", ps)
	}
}

// The Server view table for the other engines with a sampler, end to end:
// a short study per engine on the test servers, its report holding a row
// only that engine's own statistics give.
func TestServerViewOfOtherEngines(t *testing.T) {
	endToEnd(t)
	cases := []struct {
		name     string
		target   func(t *testing.T, dir string) string
		workload string
		want     string
	}{
		{"valkey", func(t *testing.T, dir string) string {
			t.Setenv("FAIRBENCH_TEST_PREFIX", testenv.RedisKeyPrefix(t))
			return testenv.ValkeyURL(t)
		}, "kind = \"kv\"\nclients = 2\nkey_prefix = \"PREFIX\"\nkey_maximum = 500\n", "commandstats.cmdstat_get.calls"},
		{"clickhouse", func(t *testing.T, dir string) string {
			u := testenv.FreshClickHouse(t)
			if o := fairbench(t, dir, "load", "--target", u, "--workload", "ssb", "--scale", "0.01"); o.code != 0 {
				t.Fatalf("load: %s", o.stderr)
			}
			return u
		}, "kind = \"ssb\"\nscale = 0.01\nform = \"flat\"\ntries = 2\n", "system.events.SelectQuery"},
		{"opensearch", func(t *testing.T, dir string) string {
			node := testenv.OpenSearch(t)
			index := testenv.OpenSearchIndex(t, node)
			if o := fairbench(t, dir, "run", "--target", node, "--workload", "bulkindex", "--index", index,
				"--docs", "2000", "--bulk-size", "500", "-c", "2", "--results", filepath.Join(dir, "load.db")); o.code != 0 {
				t.Fatalf("bulkindex: %s", o.stderr)
			}
			t.Setenv("FAIRBENCH_TEST_INDEX", index)
			return node
		}, "kind = \"search\"\ndocs = 2000\nclients = 2\nindex = \"INDEX\"\n", "_nodes/stats.indices.search.query_total"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			url := c.target(t, dir)
			wl := strings.NewReplacer("INDEX", os.Getenv("FAIRBENCH_TEST_INDEX"), "PREFIX", os.Getenv("FAIRBENCH_TEST_PREFIX")).Replace(c.workload)
			study := fmt.Sprintf("[study]\nname = %q\nrepetitions = 1\nwarmup = \"0s\"\nduration = \"2s\"\n\n[[target]]\nname = %q\nurl = %q\nserver_view = \"200ms\"\n\n[[workload]]\n%s",
				c.name, c.name, url, wl)
			if err := os.WriteFile(filepath.Join(dir, "s.toml"), []byte(study), 0o644); err != nil {
				t.Fatal(err)
			}
			if o := fairbench(t, dir, "run", "s.toml"); o.code != 0 {
				t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
			}
			o := fairbench(t, dir, "report")
			if o.code != 0 {
				t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
			}
			if !strings.Contains(o.stdout, "Server view") || !strings.Contains(o.stdout, c.want) {
				t.Errorf("the report has no Server view row %q:\n%s", c.want, o.stdout)
			}
		})
	}
}
