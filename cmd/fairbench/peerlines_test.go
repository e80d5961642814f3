package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testenv"
)

// fairbenchWithEnv runs the binary as fairbench does, with env added to
// the environment (a peer tool's PGPASSWORD).
func fairbenchWithEnv(t *testing.T, dir string, env []string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	o := outcome{stdout: so.String(), stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}

// connParts are a test server URL's host, port, user, password and
// database, as a peer tool's flags give them.
type connParts struct{ host, port, user, password, db string }

func partsOf(t *testing.T, raw string) connParts {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := connParts{host: u.Hostname(), port: u.Port(), db: strings.TrimPrefix(u.Path, "/")}
	if u.User != nil {
		p.user = u.User.Username()
		p.password, _ = u.User.Password()
	}
	return p
}

// TestPeerLinesRunOnTheTestServers: a pgbench line (its -i load step, then
// -S with -h -p -U dbname and PGPASSWORD), a sysbench line with its
// --mysql-* flags and a memtier and a redis-benchmark line with -s/-h and
// -p run, shortened, against the test servers; no password reaches the
// output.
func TestPeerLinesRunOnTheTestServers(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "r.db")
	check := func(o outcome, what, password string) {
		t.Helper()
		if o.code != 0 {
			t.Fatalf("%s: exit %d\n%s", what, o.code, o.stderr)
		}
		if password != "" && len(password) >= 4 && strings.Contains(o.stdout+o.stderr, password) {
			t.Errorf("%s: the password reached the output", what)
		}
	}
	t.Run("pgbench", func(t *testing.T) {
		p := partsOf(t, testenv.FreshPostgres(t))
		env := []string{"PGPASSWORD=" + p.password}
		conn := []string{"-h", p.host, "-p", p.port, "-U", p.user, p.db}
		load := fairbenchWithEnv(t, dir, env, append([]string{"run", "--workload", "tpcb", "-q", "--results", results, "-i", "-s", "1"}, conn...)...)
		check(load, "pgbench -i -s 1", p.password)
		o := fairbenchWithEnv(t, dir, env, append([]string{"run", "--workload", "tpcb", "-q", "--results", results, "-c", "2", "-j", "1", "-T", "1", "-S"}, conn...)...)
		check(o, "pgbench -S", p.password)
		if !strings.Contains(o.stdout, "number of clients: 2") {
			t.Errorf("pgbench's summary does not say 2 clients:\n%s", o.stdout)
		}
	})
	t.Run("sysbench", func(t *testing.T) {
		p := partsOf(t, testenv.FreshMySQL(t))
		o := fairbenchWithEnv(t, dir, nil, "run", "--workload", "oltp", "-q", "--results", results, "oltp_point_select", "--db-driver=mysql",
			"--mysql-host="+p.host, "--mysql-port="+p.port, "--mysql-user="+p.user, "--mysql-password="+p.password, "--mysql-db="+p.db,
			"--tables=1", "--table-size=100", "--threads=2", "--time=1", "run")
		check(o, "sysbench oltp_point_select", p.password)
		if !strings.Contains(o.stdout, "transactions:") {
			t.Errorf("sysbench's summary has no transactions:\n%s", o.stdout)
		}
	})
	t.Run("memtier and redis-benchmark", func(t *testing.T) {
		raw := testenv.RedisURL(t)
		p := partsOf(t, raw)
		prefix := "fbtest-peerlines-" + fmt.Sprint(time.Now().UnixNano()) + "-"
		t.Cleanup(func() { redisDeletePrefix(t, raw, prefix) }) // only the keys this test wrote
		env := []string{"REDISCLI_AUTH=" + p.password}
		o := fairbenchWithEnv(t, dir, env, "run", "--workload", "kv", "-q", "--results", results, "-s", p.host, "-p", p.port,
			"--protocol=redis", "-t", "1", "-c", "2", "--test-time=1", "--ratio=1:1", "--key-prefix", prefix, "--key-maximum", "100", "--hide-histogram")
		check(o, "memtier", p.password)
		if !strings.Contains(o.stderr, "--hide-histogram: accepted, no effect") {
			t.Errorf("no note on --hide-histogram:\n%s", o.stderr)
		}
		o = fairbenchWithEnv(t, dir, env, "run", "--workload", "kv", "--results", results, "-h", p.host, "-p", p.port,
			"-c", "2", "-n", "200", "-P", "4", "-t", "set", "-q", "--key-prefix", prefix, "--key-maximum", "100")
		check(o, "redis-benchmark", p.password)
	})
}

// TestStudyFromCommandsValidatesAndRuns: the seed article's lines become a
// study that 'fairbench validate' passes; with the test servers, the same
// shapes at two thread counts and a second each run from the study.
func TestStudyFromCommandsValidatesAndRuns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "study.toml")
	seed, err := filepath.Abs(filepath.Join("..", "..", "internal", "fromcommands", "testdata", "arm-vs-x86.sh"))
	if err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "study", "from-commands", seed, "-o", out)
	if o.code != 0 {
		t.Fatalf("from-commands: exit %d\n%s", o.code, o.stderr)
	}
	if !strings.Contains(o.stderr, "not mapped: line 6: set -e") {
		t.Errorf("from-commands does not list set -e's line on stderr:\n%s", o.stderr)
	}
	if v := fairbench(t, dir, "validate", out); v.code != 0 {
		t.Fatalf("validate: exit %d\n%s\n%s", v.code, v.stderr, v.stdout)
	}
	if testing.Short() {
		t.Skip("-short: the study is not run")
	}
	p := partsOf(t, testenv.FreshPostgres(t))
	shell := fmt.Sprintf(`pgbench -i -s 1 -h %[1]s -p %[2]s -U %[3]s %[4]s
for t in 1 2; do pgbench -c $t -j $t -T 1 -S -h %[1]s -p %[2]s -U %[3]s %[4]s; done
`, p.host, p.port, p.user, p.db)
	file := filepath.Join(dir, "short.sh")
	if err := os.WriteFile(file, []byte(shell), 0o644); err != nil {
		t.Fatal(err)
	}
	o = fairbench(t, dir, "study", "from-commands", file, "-o", out)
	if o.code != 0 {
		t.Fatalf("from-commands: exit %d\n%s", o.code, o.stderr)
	}
	run := fairbenchWithEnv(t, dir, []string{"PGPASSWORD=" + p.password}, "run", "-q", "--results", filepath.Join(dir, "r.db"), out)
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	if !strings.Contains(run.stdout+run.stderr, "2 runs stored") {
		t.Errorf("the study did not store its two cells' runs:\n%s\n%s", run.stdout, run.stderr)
	}
}
