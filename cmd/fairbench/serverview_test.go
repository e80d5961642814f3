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
