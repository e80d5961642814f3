package main

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// memtier's flags, memtier's summary: -c is per thread, so -c 3 -t 2 is six
// connections; the ALL STATS table comes from fairbench's own histograms.
func TestKVRunPrintsMemtiersSummary(t *testing.T) {
	url := testenv.ValkeyURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", url, "--workload", "kv", "--ratio", "1:4", "--pipeline", "4",
		"-c", "3", "-t", "2", "--data-size", "64", "--key-maximum", "500", "--key-prefix", prefix, "--test-time", "1s",
		"--warmup", "0s", "--results", "r.db")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{"ALL STATS", "Sets ", "Gets ", "Waits ", "Totals ", "connections: 6,", "pipeline: 4", "SET:GET 1:4"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
}

// A wrong password: one line, exit 1, and the password nowhere.
func TestKVWrongPasswordIsOneLine(t *testing.T) {
	u, _ := url.Parse(testenv.RedisAuthURL(t))
	bad := "redis://" + u.User.Username() + ":Sekrit-9931@" + u.Host
	o := fairbench(t, t.TempDir(), "run", "--target", bad, "--workload", "kv", "--test-time", "1s", "--results", "r.db")
	assertOneLineError(t, o, "refused the credentials")
	if strings.Contains(o.stdout+o.stderr, "Sekrit-9931") {
		t.Fatalf("the password is in the output:\n%s\n%s", o.stdout, o.stderr)
	}
}

// load writes the range with its marker; load --clean deletes exactly the
// keys under the prefix, and refuses a prefix fairbench did not mark.
func TestKVLoadAndClean(t *testing.T) {
	url := testenv.ValkeyURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	dir := t.TempDir()
	args := []string{"load", "--target", url, "--workload", "kv", "--key-maximum", "999", "--data-size", "16", "--key-prefix", prefix}
	if o := fairbench(t, dir, args...); o.code != 0 || !strings.Contains(o.stderr, "prefilling 1000 keys") {
		t.Fatalf("load: exit %d\n%s", o.code, o.stderr)
	}
	if o := fairbench(t, dir, args...); o.code != 0 || !strings.Contains(o.stderr, "reused") {
		t.Fatalf("second load: exit %d\n%s", o.code, o.stderr)
	}
	if o := fairbench(t, dir, append(args, "--clean")...); o.code != 0 {
		t.Fatalf("clean: exit %d\n%s", o.code, o.stderr)
	}
	// Gone: a GET-only run over the range misses every time.
	o := fairbench(t, dir, "run", "--target", url, "--workload", "kv", "--ratio", "0:1", "--key-maximum", "999",
		"--key-prefix", prefix, "-c", "1", "-t", "1", "--requests", "200", "--warmup", "0s", "--results", "r.db")
	if o.code != 0 || !regexp.MustCompile(`(?m)^Gets\s+\S+\s+0\.00\s`).MatchString(o.stdout) {
		t.Fatalf("after clean, GETs still hit:\n%s\n%s", o.stdout, o.stderr)
	}
	// Not fairbench's: no marker, nothing deleted.
	o = fairbench(t, dir, "load", "--target", url, "--workload", "kv", "--key-prefix", prefix+"other-", "--clean")
	if o.code == 0 || !strings.Contains(o.stderr, "left alone") {
		t.Fatalf("clean without a marker: exit %d\n%s", o.code, o.stderr)
	}
}
