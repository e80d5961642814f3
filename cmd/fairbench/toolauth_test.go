package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// toolCell is one tool cell on one of the test servers with a password or
// TLS (issue 49 item 6).
type toolCell struct {
	tool   string // the study's tool
	exe    string // the program that must be seen running
	url    string
	params string // the workload's TOML lines besides tool
	// secret is the password the target's URL carries ("" for a TLS-only
	// target): on no child's command line, in no output, in no stored run.
	secret string
	// refused, when set, is what the refusal before the study starts says:
	// the tool can take the password only on its command line; instead is
	// the workload the refusal names in its place.
	refused, instead string
	// tlsArg, when set, is the flag by which the stored command line asks
	// the tool for TLS.
	tlsArg string
	env    []string // added to fairbench's environment (NAME=VALUE)
}

// Every tool cell on a password-protected server, and on a TLS server where
// the tool speaks TLS, runs to completion with the password on no command
// line of any process fairbench starts (read from /proc/PID/cmdline while
// they run), in none of fairbench's output and in no stored run; a tool
// that could take it only on its command line (redis-benchmark 7,
// memtier_benchmark 2.3.0, go-tpc on MySQL) is refused before the study
// starts, naming fairbench's own workload. HammerDB, whose runs take
// whole minutes, has the same checks in TestStudyRunsHammerDBPostgres and
// TestStudyRunsHammerDBMariaDB, OpenSearch Benchmark in
// TestOSBCellOnAPasswordAndTLSServer; fio takes no credentials.
func TestToolCellsOnAuthenticatedAndTLSServers(t *testing.T) {
	redisTLS, redisCA := testenv.RedisTLS(t)
	cells := map[string]func(t *testing.T) toolCell{
		"pgbench/postgres-password-tls": func(t *testing.T) toolCell {
			pg := postgresOverTLS(t)
			return toolCell{tool: "pgbench", exe: "pgbench", url: pg, params: `mode = "select-only"` + "\nscale = 1", secret: testenv.Password(t, pg)}
		},
		"sysbench/mariadb-password": func(t *testing.T) toolCell {
			my := testenv.FreshMySQL(t)
			return toolCell{tool: "sysbench", exe: "sysbench", url: my, params: "mode = \"read_only\"\ntables = 1\ntable_size = 1000", secret: testenv.Password(t, my)}
		},
		"mysqlslap/mariadb-password-tls": func(t *testing.T) toolCell {
			my := testenv.WithQuery(t, testenv.FreshMySQL(t), "tls", "verify", "ssl-ca", testenv.MySQLCA(t))
			return toolCell{tool: "mysqlslap", exe: "mysqlslap", url: my, params: fmt.Sprintf("queries = 100\niterations = 1\nschema = %q", databaseName(my)+"_slap"), secret: testenv.Password(t, my), tlsArg: "--ssl-verify-server-cert"}
		},
		"go-tpc/postgres-password-tls": func(t *testing.T) toolCell {
			testenv.GoTPC(t)
			pg := postgresOverTLS(t)
			return toolCell{tool: "go-tpc", exe: "go-tpc", url: pg, params: "warehouses = 1", secret: testenv.Password(t, pg)}
		},
		"go-tpc/mariadb-password": func(t *testing.T) toolCell {
			testenv.GoTPC(t)
			my := testenv.FreshMySQL(t)
			return toolCell{tool: "go-tpc", exe: "go-tpc", url: my, params: "warehouses = 1", secret: testenv.Password(t, my),
				refused: "go-tpc v1.0.12 takes a MySQL password only on its command line", instead: "fairbench's own tpcc workload"}
		},
		"redis-benchmark/redis-acl-user": func(t *testing.T) toolCell {
			r := testenv.RedisAuthURL(t)
			return toolCell{tool: "redis-benchmark", exe: "redis-benchmark", url: r, params: `profile = "set-only"`, secret: testenv.Password(t, r), refused: "redis-benchmark 7 takes a password only on its command line", instead: "fairbench's own kv workload"}
		},
		"redis-benchmark/redis-tls": func(t *testing.T) toolCell {
			r := testenv.WithQuery(t, testenv.RedisSpareDB(t, redisTLS), "ca", redisCA)
			return toolCell{tool: "redis-benchmark", exe: "redis-benchmark", url: r, params: "profile = \"set-only\"\nkey_maximum = 100"}
		},
		"memtier_benchmark/redis-acl-user": func(t *testing.T) toolCell {
			memtierOnPath(t)
			r := testenv.RedisAuthURL(t)
			return toolCell{tool: "memtier_benchmark", exe: "memtier_benchmark", url: r, params: `profile = "set-only"`, secret: testenv.Password(t, r), refused: "memtier_benchmark 2.3.0 takes a password only on its command line", instead: "fairbench's own kv workload"}
		},
		"memtier_benchmark/redis-tls": func(t *testing.T) toolCell {
			memtierOnPath(t)
			r := testenv.WithQuery(t, redisTLS, "ca", redisCA)
			return toolCell{tool: "memtier_benchmark", exe: "memtier_benchmark", url: r, params: fmt.Sprintf("profile = \"set-only\"\nkey_maximum = 100\nkey_prefix = %q", testenv.RedisKeyPrefix(t))}
		},
	}
	// go-ycsb on each engine it speaks with a password.
	for engine, target := range map[string]func(t testing.TB) string{
		"postgres-password-tls": postgresOverTLS,
		"mariadb-password":      testenv.FreshMySQL,
		"redis-acl-user":        func(t testing.TB) string { return testenv.RedisSpareDB(t, testenv.RedisAuthURL(t)) },
	} {
		cells["ycsb/"+engine] = func(t *testing.T) toolCell {
			testenv.GoYCSB(t)
			u := target(t)
			return toolCell{tool: "ycsb", exe: "go-ycsb", url: u, params: "workload = \"c\"\nrecordcount = 200", secret: testenv.Password(t, u)}
		}
	}
	for name, cell := range cells {
		t.Run(name, func(t *testing.T) {
			t.Setenv("REDISCLI_AUTH", "")
			t.Setenv("MYSQL_PWD", "")
			t.Setenv("PGPASSWORD", "")
			c := cell(t)
			testenv.Tool(t, c.exe)
			runToolCell(t, c)
		})
	}
}

func runToolCell(t *testing.T, c toolCell) {
	t.Helper()
	dir := t.TempDir()
	st := fmt.Sprintf("[study]\nname = \"auth\"\nwarmup = \"0s\"\nduration = \"2s\"\n\n[[target]]\nname = \"db\"\nurl = %q\n\n[[workload]]\ntool = %q\nclients = [2]\n%s\n", c.url, c.tool, c.params)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	var stop func() map[string]bool
	if c.secret != "" {
		stop = testenv.WatchArgv(t, c.secret)
	}
	o := fairbenchEnv(t, dir, c.env, "run", "study.toml")
	var seen map[string]bool
	if stop != nil {
		seen = stop()
	}
	if c.secret != "" && strings.Contains(o.stdout+o.stderr, c.secret) {
		t.Error("the password appears in fairbench's output")
	}
	if c.refused != "" {
		if o.code == 0 || !strings.Contains(o.stderr, c.refused) || !strings.Contains(o.stderr, c.instead) {
			t.Fatalf("exit %d, want the refusal %q naming %s:\n%s", o.code, c.refused, c.instead, o.stderr)
		}
		if seen[c.exe] {
			t.Errorf("%s ran although the cell was refused", c.exe)
		}
		return
	}
	if o.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if stop != nil && !seen[c.exe] {
		t.Errorf("%s was never seen running (programs seen: %v): its command line was not checked", c.exe, seen)
	}
	stored, err := os.ReadFile(filepath.Join(dir, defaultResults))
	if err != nil {
		t.Fatal(err)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) == 0 {
		t.Fatal("no run stored")
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Source != c.tool && r.Source != c.exe {
			t.Errorf("run %s (%s): %s", r.Source, r.Status, r.Error)
		}
		if cmd, _ := r.Env.Extra["command"].(string); c.tlsArg != "" && !strings.Contains(cmd, c.tlsArg) {
			t.Errorf("the stored command %q does not ask for TLS (%s)", cmd, c.tlsArg)
		}
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if c.secret != "" && (strings.Contains(string(j), c.secret) || strings.Contains(string(stored), c.secret)) {
			t.Errorf("the stored run holds the password")
		}
	}
}

// postgresOverTLS is a fresh database of the test PostgreSQL (password
// login) reached over TLS: its snakeoil certificate, not verified.
func postgresOverTLS(t testing.TB) string {
	return testenv.WithQuery(t, testenv.FreshPostgres(t), "sslmode", "require")
}

func memtierOnPath(t *testing.T) {
	bin := testenv.Memtier(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// databaseName is the database a URL's path names.
func databaseName(raw string) string {
	db := raw[strings.LastIndex(raw, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	return db
}
