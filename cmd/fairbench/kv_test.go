package main

import (
	"net/url"
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
