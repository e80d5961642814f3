package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// kvTargets are the key-value targets of the environment: the embedded
// engines always, the test Redis, Valkey and cluster when they are there.
func kvTargets(t *testing.T) map[string]string {
	dir := t.TempDir()
	out := map[string]string{
		"bbolt":  "bbolt:" + filepath.Join(dir, "b.db"),
		"pebble": "pebble:" + filepath.Join(dir, "p"),
	}
	for name, env := range map[string]string{"redis": "FAIRBENCH_TEST_REDIS", "valkey": "FAIRBENCH_TEST_VALKEY"} {
		if u := os.Getenv(env); u != "" {
			out[name] = u
		}
	}
	if c := os.Getenv("FAIRBENCH_TEST_REDIS_CLUSTER"); c != "" {
		out["cluster"] = "redis://" + strings.Split(c, ",")[0] + "?cluster=true"
	}
	return out
}

// kvDo runs cmds on url through a client of its own, closed before it
// returns (an embedded database is then free for the fairbench binary), and
// returns each reply: its value, "(nil)" for a missing key.
func kvDo(t *testing.T, url string, cmds ...driver.KVCommand) []string {
	t.Helper()
	ctx := context.Background()
	d, err := driver.ForURL(url)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := d.Open(ctx, driver.Target{Name: "test", URL: url}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(ctx)
	s, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	replies := make([]driver.KVReply, len(cmds))
	if err := s.(driver.KV).Pipeline(ctx, cmds, replies); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(cmds))
	for i, r := range replies {
		switch {
		case r.Err != nil:
			t.Fatalf("%s %s: %v", cmds[i].Name, cmds[i].Key, r.Err)
		case r.Miss:
			out[i] = "(nil)"
		default:
			out[i] = string(r.Value)
		}
	}
	return out
}

func kvSet(key, value string) driver.KVCommand {
	return driver.KVCommand{Name: "SET", Key: []byte(key), Value: []byte(value)}
}

func kvGet(key string) driver.KVCommand { return driver.KVCommand{Name: "GET", Key: []byte(key)} }

// A key someone else wrote in the middle of the range (not at its ends)
// stops the load, with its name and --replace; a foreign key under the
// prefix but outside the range does not, and --clean, which deletes the
// range the marker records, leaves it. A run whose SETs would overwrite the
// foreign key stops too.
func TestKVForeignKeysAreNeverOverwrittenOrDeleted(t *testing.T) {
	for name, url := range kvTargets(t) {
		t.Run(name, func(t *testing.T) {
			prefix := testenv.RedisKeyPrefix(t) + "user:"
			dir := t.TempDir()
			kvDo(t, url, kvSet(prefix+"50", "theirs"), kvSet(prefix+"keep", "theirs"))
			load := []string{"load", "--target", url, "--workload", "kv", "--key-prefix", prefix, "--key-minimum", "1", "--key-maximum", "100"}
			o := fairbench(t, dir, load...)
			if o.code == 0 || !strings.Contains(o.stderr, "key "+prefix+"50 exists") || !strings.Contains(o.stderr, "--replace") {
				t.Fatalf("load over a foreign key: exit %d\n%s", o.code, o.stderr)
			}
			o = fairbench(t, dir, "run", "--target", url, "--workload", "kv", "--key-prefix", prefix, "--key-minimum", "1", "--key-maximum", "100",
				"--ratio", "1:1", "-c", "1", "-t", "1", "--requests", "50", "--warmup", "0s", "--results", "r.db")
			if o.code == 0 || !strings.Contains(o.stderr, prefix+"50") {
				t.Fatalf("a writing run over a foreign key: exit %d\n%s", o.code, o.stderr)
			}
			if got := kvDo(t, url, kvGet(prefix+"50")); got[0] != "theirs" {
				t.Fatalf("the foreign key %s50 holds %q", prefix, got[0])
			}
			// Without the key in the range: loaded, then cleaned.
			kvDo(t, url, driver.KVCommand{Name: "DEL", Key: []byte(prefix + "50")})
			if o := fairbench(t, dir, load...); o.code != 0 {
				t.Fatalf("load: exit %d\n%s", o.code, o.stderr)
			}
			if got := kvDo(t, url, kvGet(prefix+"50"), kvGet(prefix+"keep")); got[0] == "(nil)" || got[1] != "theirs" {
				t.Fatalf("after the load: %s50 = %q, %skeep = %q", prefix, got[0], prefix, got[1])
			}
			if o := fairbench(t, dir, append(load, "--clean")...); o.code != 0 {
				t.Fatalf("clean: exit %d\n%s", o.code, o.stderr)
			}
			got := kvDo(t, url, kvGet(prefix+"1"), kvGet(prefix+"50"), kvGet(prefix+"100"), kvGet(prefix+"fairbench-marker"), kvGet(prefix+"keep"))
			if got[0] != "(nil)" || got[1] != "(nil)" || got[2] != "(nil)" || got[3] != "(nil)" {
				t.Errorf("--clean left fairbench's keys or marker: %q", got[:4])
			}
			if got[4] != "theirs" {
				t.Errorf("--clean deleted the foreign key %skeep (now %q)", prefix, got[4])
			}
			// --replace overwrites the foreign key, which is then fairbench's.
			kvDo(t, url, kvSet(prefix+"50", "theirs"))
			if o := fairbench(t, dir, append(load, "--replace")...); o.code != 0 {
				t.Fatalf("load --replace: exit %d\n%s", o.code, o.stderr)
			}
			if got := kvDo(t, url, kvGet(prefix+"50")); got[0] == "theirs" {
				t.Error("load --replace left the foreign value")
			}
			if o := fairbench(t, dir, append(load, "--clean")...); o.code != 0 {
				t.Fatalf("clean: exit %d\n%s", o.code, o.stderr)
			}
			kvDo(t, url, driver.KVCommand{Name: "DEL", Key: []byte(prefix + "keep")})
		})
	}
}
