package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// A study cell with tool = "memtier_benchmark" runs the real tool for 2 s
// against the test Redis and stores the run read from memtier's JSON.
// FAIRBENCH_TEST_MEMTIER is the binary scripts/install-memtier.sh builds,
// FAIRBENCH_TEST_REDIS a password-less redis:// URL.
func TestStudyRunsMemtier(t *testing.T) {
	bin, redis := testenv.Memtier(t), testenv.RedisURL(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("REDISCLI_AUTH", "")
	// A key prefix of this test's own, removed afterwards: the test Redis is shared.
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "fbtest-memtier-" + hex.EncodeToString(b) + "-"
	t.Cleanup(func() { redisDeletePrefix(t, redis, prefix) })

	dir := t.TempDir()
	st := fmt.Sprintf(`[study]
name = "memtier"
warmup = "1s"
duration = "2s"

[[target]]
name = "redis"
url = %q

[[workload]]
tool = "memtier_benchmark"
ratio = "1:4"
key_prefix = %q
key_maximum = 1000
threads = 2
clients = [4]
`, redis, prefix)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Source != "memtier_benchmark" || r.Kind != "kv" || r.Status != result.StatusOK {
		t.Fatalf("run %s %s %s: %s", r.Source, r.Kind, r.Status, r.Error)
	}
	counts := map[string]int64{}
	for _, op := range r.Ops {
		counts[op.Name] = op.Count
		if op.Histogram == nil {
			t.Errorf("op %s without a histogram", op.Name)
		}
	}
	s := r.Summary
	if counts["set"] <= 0 || counts["get"] <= 0 || counts["set"]+counts["get"] != s.Transactions {
		t.Fatalf("sets %d + gets %d, transactions %d", counts["set"], counts["get"], s.Transactions)
	}
	// ratio 1:4: about a fifth are SETs.
	if f := float64(counts["set"]) / float64(s.Transactions); f < 0.15 || f > 0.25 {
		t.Errorf("SET share %.3f, want about 0.2 (ratio 1:4)", f)
	}
	if d := r.Duration; d < 1900*time.Millisecond || d > 3*time.Second {
		t.Errorf("duration %v, want about 2 s", d)
	}
	rate := float64(s.Transactions) / r.Duration.Seconds()
	if s.Throughput <= 0 || s.Throughput < rate*0.99 || s.Throughput > rate*1.01 {
		t.Errorf("throughput %.1f, counts give %.1f", s.Throughput, rate)
	}
	if s.P50 <= 0 || s.P99 < s.P50 || s.LatencyMean <= 0 || len(r.Series) < 2 {
		t.Errorf("latencies p50 %v p99 %v mean %v, %d series points", s.P50, s.P99, s.LatencyMean, len(r.Series))
	}
	if _, ok := s.Extra["misses_per_sec"]; !ok {
		t.Errorf("no misses in %v", s.Extra)
	}
	cmd, _ := r.Env.Extra["command"].(string)
	for _, want := range []string{"memtier_benchmark ", "-t 2 -c 2", "--ratio=1:4", "--key-prefix=" + prefix, "--key-maximum=1000", "--distinct-client-seed", "--test-time=2", "--json-out-file="} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
	t.Logf("%s: %d ops, %.0f ops/s, p50 %.0f µs, p99 %.0f µs", cmd, s.Transactions, s.Throughput, s.P50, s.P99)
}

// A target with a password is refused before the study starts: memtier
// would need it on its command line. The password appears nowhere.
func TestStudyMemtierRefusesPassword(t *testing.T) {
	// A stand-in binary: the refusal comes before memtier would run.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "memtier_benchmark"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	st := `[study]
name = "memtier"
duration = "1s"

[[target]]
name = "redis"
url = "redis://default:Sup3rS3cret@127.0.0.1:6391/0"

[[workload]]
tool = "memtier_benchmark"
profile = "get-heavy"
clients = [2]
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code == 0 || !strings.Contains(o.stderr, "takes a password only on its command line") {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if strings.Contains(o.stdout+o.stderr, "Sup3rS3cret") {
		t.Fatalf("the password appears in the output:\n%s", o.stderr)
	}
}

// memtier's JSON imports as is; its text needs the pipeline and value size.
func TestImportMemtier(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "import", "--target", "r", fixtures(t, "memtier_benchmark", "mt23-json.json"))
	if o.code != 0 {
		t.Fatalf("import JSON: %s", o.stderr)
	}
	o = fairbench(t, dir, "import", "--target", "r", fixtures(t, "memtier_benchmark", "mt23-default.txt"))
	if o.code == 0 || !strings.Contains(o.stderr, "--pipeline") || !strings.Contains(o.stderr, "--data-size") {
		t.Fatalf("import text without flags: exit %d\n%s", o.code, o.stderr)
	}
	o = fairbench(t, dir, "import", "--target", "r", "-P", "1", "-d", "32", fixtures(t, "memtier_benchmark", "mt23-default.txt"))
	if o.code != 0 {
		t.Fatalf("import text: %s", o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if r.Source != "memtier_benchmark" || r.Kind != "kv" || r.Clients != 10 || len(r.Ops) != 2 {
			t.Errorf("run %s %s clients %d ops %d", r.Source, r.Kind, r.Clients, len(r.Ops))
		}
	}
	// mt23-json.json line 269 and mt23-default.txt line 7 (last progress line)
	if runs[0].Summary.Transactions != 245759 || runs[1].Summary.Transactions != 187527 {
		t.Errorf("transactions %d, %d", runs[0].Summary.Transactions, runs[1].Summary.Transactions)
	}
}

// redisDeletePrefix removes the keys a test wrote, speaking RESP directly
// (the test Redis is shared, and no Redis client is a dependency here).
func redisDeletePrefix(t *testing.T, raw, prefix string) {
	u, err := url.Parse(raw)
	if err != nil {
		t.Errorf("FAIRBENCH_TEST_REDIS: %v", err)
		return
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "6379")
	}
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Errorf("cleaning up %s*: %v", prefix, err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	send := func(args ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := c.Write([]byte(b.String())); err != nil {
			return "-" + err.Error()
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "-" + err.Error()
		}
		return strings.TrimSpace(line)
	}
	if db := strings.Trim(u.Path, "/"); db != "" && db != "0" {
		if r := send("SELECT", db); !strings.HasPrefix(r, "+") {
			t.Errorf("SELECT %s: %s", db, r)
			return
		}
	}
	// One server-side script: SCAN the prefix and delete what it finds.
	const script = `local c, n = "0", 0
repeat
  local r = redis.call("SCAN", c, "MATCH", ARGV[1], "COUNT", 1000)
  c = r[1]
  for _, k in ipairs(r[2]) do redis.call("DEL", k); n = n + 1 end
until c == "0"
return n`
	if r := send("EVAL", script, "0", prefix+"*"); !strings.HasPrefix(r, ":") {
		t.Errorf("deleting %s*: %s", prefix, r)
	}
}
