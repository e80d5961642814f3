package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// Issue 40 item 2: the command lines of YCSB's bin/ycsb, sysbench and
// memtier_benchmark are taken as their users type them, and their output
// shapes are printed.

// YCSB's status line (StatusThread with -s): date, seconds, operations so
// far, current rate, and per op type the interval's HdrHistogram summary.
var ycsbStatusLine = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: \d+ operations; [\d.]+ current ops/sec; ` +
	`\[(READ|UPDATE): Count=\d+, Max=\d+, Min=\d+, Avg=[\d.]+, 90=\d+, 99=\d+, 99\.9=\d+, 99\.99=\d+\]`)

// TestYCSBSingleDashOptionsAreYCSBs: -threads, -target and -s mean what
// they mean to bin/ycsb; a flag's value is never rewritten, and the
// double-dash --target stays the URL.
func TestYCSBSingleDashOptionsAreYCSBs(t *testing.T) {
	args := []string{"--workload", "ycsb", "--target", "sqlite:x.db", "run", "-threads", "4", "-target", "1000", "-s", "-P", "-s", "-p", "recordcount=5"}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	a := &adhoc{}
	fs.StringVar(&a.target, "target", "", "")
	fs.StringVar(&a.workload, "workload", "", "")
	fs.StringVar(&a.warmup, "warmup", "0s", "")
	fs.StringArrayVar(&a.set, "set", nil, "")
	if err := a.defineWorkloadFlags(fs, "ycsb", true); err != nil {
		t.Fatal(err)
	}
	w, _ := workload.Get("ycsb")
	out, action, err := peerArgs(args, workload.CommandLineOf(w), fs)
	if err != nil {
		t.Fatal(err)
	}
	if action != workload.ActionRun {
		t.Errorf("action %q, want run (bin/ycsb's run command)", action)
	}
	if err := fs.Parse(out); err != nil {
		t.Fatalf("%v (arguments %q)", err, out)
	}
	st, c, err := adhocStudy(a, fs)
	if err != nil {
		t.Fatal(err)
	}
	wl := st.Workloads[0]
	if wl.Clients[0].N != 4 || wl.Rate != 1000 || c.progress != 10 || a.target != "sqlite:x.db" {
		t.Errorf("clients %d, rate %v, status every %d s, target %q; want 4, 1000, 10 (YCSB's -s), sqlite:x.db", wl.Clients[0].N, wl.Rate, c.progress, a.target)
	}
	if files := wl.Params["property_files"]; len(files) != 1 || fmt.Sprint(files[0]) != "[-s]" {
		t.Errorf("-P's value: %v, want the file -s left as it was", files)
	}
}

// TestYCSBCommandLineOnRedis: bin/ycsb's load and run commands with its
// single-dash options against Redis; -s prints YCSB's status lines.
func TestYCSBCommandLineOnRedis(t *testing.T) {
	url := testenv.RedisURL(t)
	dir := t.TempDir()
	table := fmt.Sprintf("pf40t%d", time.Now().UnixNano())
	props := []string{"--workload", "ycsb", "--target", url, "-p", "recordcount=300", "-p", "table=" + table}
	t.Cleanup(func() { fairbench(t, dir, append([]string{"load", "--clean"}, props...)...) })
	o := fairbench(t, dir, append([]string{"run"}, append(props, "load")...)...)
	if o.code != 0 || !strings.Contains(o.stderr, "loaded 300 records") {
		t.Fatalf("bin/ycsb load: exit %d\n%s", o.code, o.stderr)
	}
	o = fairbench(t, dir, append([]string{"run", "--results", "r.db"}, append(props, "run", "-threads", "2", "-target", "300", "-s", "--status", "1", "--duration", "3s")...)...)
	if o.code != 0 {
		t.Fatalf("bin/ycsb run: exit %d\n%s", o.code, o.stderr)
	}
	if !ycsbStatusLine.MatchString(o.stderr) {
		t.Errorf("no YCSB status line on stderr:\n%s", o.stderr)
	}
	if !strings.Contains(o.stdout, "[OVERALL], Throughput(ops/sec), ") {
		t.Errorf("no YCSB report:\n%s", o.stdout)
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 1 || runs[0].Clients != 2 || runs[0].Summary.TargetRate != 300 {
		t.Fatalf("stored %d runs; want one of 2 clients at 300 ops/s: %+v", len(runs), runs)
	}
}

// sysbench 1.0's intermediate report line (--report-interval).
var sysbenchInterim = regexp.MustCompile(`(?m)^\[ \d+s \] thds: 2 tps: [\d.]+ qps: [\d.]+ \(r/w/o: [\d.]+/[\d.]+/[\d.]+\) lat \(ms,99%\): [\d.]+ err/s: [\d.]+ reconn/s: [\d.]+$`)

// TestSysbenchCommandLine: `oltp_read_write prepare|run|cleanup` with
// sysbench's --warmup-time, --events, --histogram, --percentile and its
// interim lines, on MariaDB; cleanup drops the tables fairbench loaded and
// nothing else.
func TestSysbenchCommandLine(t *testing.T) {
	url := testenv.FreshMySQL(t)
	dir := t.TempDir()
	base := []string{"run", "--workload", "oltp", "--target", url, "--results", "r.db", "--tables", "1", "--table-size", "500"}
	sb := func(args ...string) outcome {
		return fairbench(t, dir, append(append([]string{}, base...), args...)...)
	}
	if o := sb("oltp_read_write", "prepare"); o.code != 0 || !strings.Contains(o.stderr, "done in") {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	o := sb("oltp_read_write", "--threads", "2", "--time", "3", "--warmup-time", "1", "--report-interval", "1", "--percentile", "99", "--histogram", "run")
	if o.code != 0 {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	if !sysbenchInterim.MatchString(o.stderr) {
		t.Errorf("no sysbench interim line:\n%s", o.stderr)
	}
	for _, want := range []string{"Latency histogram (values are in milliseconds)", "       value  ------------- distribution ------------- count",
		"99th percentile:", "script: oltp_read_write"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "95th percentile:") {
		t.Errorf("--percentile 99 still prints the 95th:\n%s", o.stdout)
	}
	// Read-only: no deadlock can fail one of the 40 events.
	o = sb("oltp_read_only", "--threads", "2", "--time", "600", "--events", "40", "run")
	if o.code != 0 || !regexp.MustCompile(`total number of events:\s+40\n`).MatchString(o.stdout) {
		t.Fatalf("--events 40: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 2 || runs[0].Warmup != time.Second || runs[1].Summary.Transactions != 40 {
		t.Fatalf("stored %d runs; want the first with 1 s of warm-up, the second of 40 transactions", len(runs))
	}
	if o := sb("oltp_read_write", "cleanup"); o.code != 0 {
		t.Fatalf("cleanup: exit %d\n%s", o.code, o.stderr)
	}
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	if ok, err := sqlwork.TableExists(context.Background(), c, "sbtest1"); err != nil || ok {
		t.Fatalf("after cleanup sbtest1 exists: %v, %v", ok, err)
	}
}

// TestSysbenchCleanupLeavesForeignTables: sysbench's cleanup drops any
// sbtest table; fairbench's refuses a table it did not load, and says so.
func TestSysbenchCleanupLeavesForeignTables(t *testing.T) {
	url := testenv.FreshPostgres(t)
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	ctx := context.Background()
	if err := c.Exec(ctx, "CREATE TABLE sbtest1 (id int)"); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, t.TempDir(), "run", "--workload", "oltp", "--target", url, "oltp_read_only", "cleanup")
	if o.code != 1 || !strings.Contains(o.stderr, "sbtest1 left alone") {
		t.Fatalf("cleanup of a foreign sbtest1: exit %d\n%s", o.code, o.stderr)
	}
	if ok, err := sqlwork.TableExists(ctx, c, "sbtest1"); err != nil || !ok {
		t.Fatalf("the foreign sbtest1 is gone: %v, %v", ok, err)
	}
}

// TestMemtierCommandLine: memtier's -R (random data), --print-percentiles,
// --json-out-file (memtier's JSON, which fairbench's memtier importer
// reads back) and its --requests default of 10 000 without --test-time.
func TestMemtierCommandLine(t *testing.T) {
	url := testenv.RedisURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--workload", "kv", "--target", url, "--results", "r.db", "-t", "1", "-c", "1",
		"-R", "-d", "64", "--ratio", "1:0", "--key-pattern", "S:S", "--key-prefix", prefix, "--key-maximum", "1000", "-n", "50",
		"--print-percentiles", "50,90,99.99", "--json-out-file", "out.json")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if !regexp.MustCompile(`Avg\. Latency\s+p50 Latency\s+p90 Latency\s+p99\.99 Latency\s+KB/sec`).MatchString(o.stdout) {
		t.Errorf("the table's percentiles are not --print-percentiles':\n%s", o.stdout)
	}
	v := kvDo(t, url, kvGet(prefix+"0"))[0]
	if len(v) != 64 || strings.Count(v, "x") == 64 {
		t.Errorf("-R wrote %q, want 64 random bytes", v)
	}
	text, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ALL STATS"`, `"Ops/sec"`, `"p90.00"`, `"p99.99"`, `"Compressed Histogram"`, `"random_data": "true"`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("out.json lacks %s", want)
		}
	}
	if o := fairbench(t, dir, "import", "--target", "r", "--results", "imp.db", "out.json"); o.code != 0 {
		t.Fatalf("memtier's importer refuses the JSON: %s", o.stderr)
	}
	if runs := runsIn(t, filepath.Join(dir, "imp.db")); len(runs) != 1 || runs[0].Source != "memtier_benchmark" || runs[0].Summary.Transactions != 50 {
		t.Fatalf("imported %d runs, want one memtier run of 50 requests", len(runs))
	}
	// No --test-time and no --requests: memtier's 10 000 requests per connection.
	o = fairbench(t, dir, "run", "--workload", "kv", "--target", url, "--results", "r.db", "-t", "1", "-c", "1",
		"--ratio", "0:1", "--key-prefix", prefix, "--key-maximum", "1000")
	if o.code != 0 {
		t.Fatalf("default run: exit %d\n%s", o.code, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 2 || runs[1].Params["requests"] != int64(10000) || runs[1].Summary.Transactions != 10000 {
		t.Fatalf("default run: %d runs, requests %v, %d requests made; want memtier's 10000", len(runs), runs[len(runs)-1].Params["requests"], runs[len(runs)-1].Summary.Transactions)
	}
	// A JSON file that cannot be written: the run is stored all the same,
	// and the command fails naming the file.
	o = fairbench(t, dir, "run", "--workload", "kv", "--target", url, "--results", "r.db", "-t", "1", "-c", "1",
		"--key-prefix", prefix, "-n", "10", "--json-out-file", filepath.Join(dir, "missing", "out.json"))
	if o.code != 1 || !strings.Contains(o.stderr, filepath.Join("missing", "out.json")) || len(runsIn(t, filepath.Join(dir, "r.db"))) != 3 {
		t.Fatalf("unwritable --json-out-file: exit %d\n%s", o.code, o.stderr)
	}
}

// TestPeerFlagsRefuseHostileValues: every new numeric flag has a domain,
// checked before anything connects (the target here refuses connections).
func TestPeerFlagsRefuseHostileValues(t *testing.T) {
	dir := t.TempDir()
	sql, kv := "postgres://nobody@127.0.0.1:1/none", "redis://127.0.0.1:1/0"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "oltp", "--target", sql, "--percentile", "NaN"}, "--percentile"},
		{[]string{"--workload", "oltp", "--target", sql, "--percentile", "-1"}, "--percentile"},
		{[]string{"--workload", "oltp", "--target", sql, "--percentile", "101"}, "--percentile"},
		{[]string{"--workload", "oltp", "--target", sql, "--percentile", "1000000000000"}, "--percentile"},
		{[]string{"--workload", "oltp", "--target", sql, "--events", "-1"}, "--events"},
		{[]string{"--workload", "oltp", "--target", sql, "--events", "NaN"}, "--events"},
		{[]string{"--workload", "oltp", "--target", sql, "--events", "1e16"}, "--events"},
		{[]string{"--workload", "oltp", "--target", sql, "--events", "10000000000000000"}, "--events"},
		{[]string{"--workload", "oltp", "--target", sql, "--warmup-time", "-5"}, "--warmup-time"},
		{[]string{"--workload", "oltp", "--target", sql, "--histogram=maybe"}, "--histogram"},
		{[]string{"--workload", "oltp", "--target", sql, "oltp_read_write", "prepare", "cleanup"}, `"prepare" and "cleanup"`},
		{[]string{"--workload", "kv", "--target", kv, "--print-percentiles", "50,NaN"}, "--print-percentiles"},
		{[]string{"--workload", "kv", "--target", kv, "--print-percentiles", "101"}, "--print-percentiles"},
		{[]string{"--workload", "kv", "--target", kv, "--print-percentiles", "-5"}, "--print-percentiles"},
		{[]string{"--workload", "kv", "--target", kv, "--print-percentiles", "Inf"}, "--print-percentiles"},
		{[]string{"--workload", "kv", "--target", kv, "--json-out-file", ""}, "--json-out-file"},
		{[]string{"--workload", "kv", "--target", kv, "-n", "-1"}, "-n/--requests"},
		{[]string{"--workload", "ycsb", "--target", kv, "-threads", "0"}, "--threads"},
		{[]string{"--workload", "ycsb", "--target", kv, "-threads", "1000000000000"}, "--threads"},
		{[]string{"--workload", "ycsb", "--target", kv, "-target", "NaN"}, "--rate"},
		{[]string{"--workload", "ycsb", "--target", kv, "-target", "-1"}, "--rate"},
		{[]string{"--workload", "ycsb", "--target", kv, "-target", "1e12"}, "--rate"},
		{[]string{"--workload", "ycsb", "--target", kv, "redis"}, "load, run"},
	} {
		o := fairbench(t, dir, append([]string{"run"}, c.args...)...)
		if o.code != 1 || !strings.Contains(o.stderr, c.want) || strings.Contains(o.stderr, "refused") {
			t.Errorf("%q: exit %d, want 1 with an error naming %s before connecting:\n%s", c.args, o.code, c.want, o.stderr)
		}
	}
}

// TestWorkloadHelpShowsTargetsAndExamples: every workload's --help says
// which targets it runs on, by URL schemes fairbench has a driver for, and
// ends with two or three examples, each a command line its flags take.
func TestWorkloadHelpShowsTargetsAndExamples(t *testing.T) {
	dir := t.TempDir()
	// A scheme as the help writes it: "postgres://" or "sqlite:FILE".
	scheme := regexp.MustCompile(`\b([a-z][a-z0-9+]*)(://|:(FILE|DIR)\b)`)
	registered := map[string]bool{}
	for _, s := range driver.Schemes() {
		registered[strings.TrimRight(s, ":/")] = true
	}
	// Targets each peer workload's help must name, beside its schemes' check.
	named := map[string][]string{
		"ycsb":       {"mongodb://", "bbolt:FILE", "postgres://"},
		"oltp":       {"mysql://", "sqlite:FILE"},
		"kv":         {"redis://", "pebble:DIR"},
		"tpcb":       {"postgres://", "mysql://", "sqlite:FILE"},
		"tpcc":       {"postgres://", "mysql://", "sqlite:FILE"},
		"ssb":        {"clickhouse://", "postgres://", "sqlite:FILE"},
		"clickbench": {"clickhouse://", "postgres://", "sqlite:FILE"},
		"bulkindex":  {"opensearch://", "elasticsearch://"},
		"search":     {"opensearch://", "elasticsearch://"},
	}
	for _, kind := range workload.Kinds() {
		o := fairbench(t, dir, "run", "--workload", kind, "--help")
		if o.code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", kind, o.code, o.stderr)
		}
		runsOn := ""
		for _, line := range strings.Split(o.stdout, "\n") {
			if _, after, ok := strings.Cut(line, "workload "+kind+" runs on "); ok && strings.Contains(line, "--target") {
				runsOn = after
			}
		}
		schemes := scheme.FindAllStringSubmatch(runsOn, -1)
		if len(schemes) == 0 {
			t.Errorf("%s --help has no --target line saying which targets it runs on:\n%s", kind, o.stdout)
		}
		for _, m := range schemes {
			if !registered[m[1]] {
				t.Errorf("%s --help names %s, for which fairbench has no driver (%v)", kind, m[0], driver.Schemes())
			}
		}
		for _, want := range named[kind] {
			if !strings.Contains(runsOn, want) {
				t.Errorf("%s --help does not say it runs on %s: %q", kind, want, runsOn)
			}
		}
		_, section, _ := strings.Cut(o.stdout, "\nExamples:\n")
		var examples []string
		for _, line := range strings.Split(section, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				examples = append(examples, line)
			}
		}
		if len(examples) < 2 || len(examples) > 3 {
			t.Errorf("%s --help ends with %d examples, want two or three:\n%s", kind, len(examples), o.stdout)
		}
		for _, ex := range examples {
			if err := exampleParses(t, kind, ex); err != nil {
				t.Errorf("%s --help's example %q: %v", kind, ex, err)
			}
		}
	}
}

// exampleParses reads a help example as `fairbench run` reads its command
// line (the peer tool's words and aliases, the workload's flags) and builds
// its ad-hoc study, without running it.
func exampleParses(t *testing.T, kind, example string) error {
	args, ok := strings.CutPrefix(example, "fairbench run ")
	if !ok {
		return fmt.Errorf("not a 'fairbench run' command")
	}
	words := strings.Fields(args)
	if got := scanWorkload(words); got != kind {
		return fmt.Errorf("runs workload %s", got)
	}
	a, fs := adhocFlags(t, kind)
	words, _, err := peerArgs(words, commandLineOf(kind), fs)
	if err != nil {
		return err
	}
	if err := fs.Parse(words); err != nil {
		return err
	}
	if err := a.resolveTarget(); err != nil {
		return err
	}
	if a.target == "" {
		return fmt.Errorf("gives no --target")
	}
	_, _, err = adhocStudy(a, fs)
	return err
}

// TestSysbenchTimeZeroIsNoLimit: sysbench's --time=0 is no time limit
// (with --events, the events end the run), capped here at a day.
func TestSysbenchTimeZeroIsNoLimit(t *testing.T) {
	a, fs, err := adhocFor(t, "--target", "sqlite:x.db", "--workload", "oltp", "--time", "0", "--events", "1000")
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := adhocStudy(a, fs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Duration != 24*time.Hour || st.Workloads[0].Params["events"][0] != int64(1000) {
		t.Errorf("duration %s, events %v; want 24h and 1000", st.Duration, st.Workloads[0].Params["events"])
	}
}
