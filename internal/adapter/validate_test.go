package adapter

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

func fixture(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRefused parses text and wants an error naming name:line (line > 0) and
// containing every one of wants.
func wantRefused(t *testing.T, name, text string, wants ...string) {
	t.Helper()
	_, runs, err := parse(name, text)
	if err == nil {
		t.Fatalf("%s: accepted (%d runs), want it refused", name, len(runs))
	}
	if !regexp.MustCompile(regexp.QuoteMeta(name) + `(:\d+)?: `).MatchString(err.Error()) {
		t.Errorf("%s: error does not name the file: %v", name, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", name, err, w)
		}
	}
}

// A real output of each adapter cut short is refused: cut mid-line always,
// and at a line boundary where the format says what must still follow.
func TestTruncatedOutputsRefused(t *testing.T) {
	cases := []struct {
		fixture string
		lines   int // keep this many whole lines, then half of the next
		want    string
	}{
		{"pgbench/pg16-tpcb-P-r.txt", 12, "truncated"},
		{"sysbench/sb1-oltp-read-only.txt", 20, "truncated"},
		{"fio/fio333-randrw-8k-json.txt", 100, "truncated"},
		{"redis-benchmark/redis7-default-get-set.txt", 30, "truncated"},
		{"ycsb/go-ycsb101-redis-workloada.txt", 20, "truncated"},
		{"ycsb/ycsb017-basicdb-workloada-status.txt", 30, "truncated"},
		{"mysqlslap/mysqlslap-autogen.txt", 4, "truncated"},
	}
	for _, c := range cases {
		text := fixture(t, c.fixture)
		if _, _, err := parse(c.fixture, text); err != nil {
			t.Fatalf("%s: the whole fixture does not parse: %v", c.fixture, err)
		}
		ls := strings.SplitAfter(text, "\n")
		cut := strings.Join(ls[:c.lines], "") + ls[c.lines][:len(ls[c.lines])/2]
		wantRefused(t, c.fixture, cut, c.want)
		if !strings.Contains(func() string { _, _, err := parse(c.fixture, cut); return err.Error() }(), ":") {
			t.Errorf("%s: no line", c.fixture)
		}
	}
	// Cut at a line boundary: the end of the output is missing.
	for _, c := range []struct {
		fixture string
		drop    int // lines dropped from the end
		want    string
	}{
		{"sysbench/sb1-oltp-read-only.txt", 2, "fairness"},
		{"pgbench/pg16-tpcb-P-r.txt", 3, "statement latencies of all 11"},
		{"pgbench/pg15-select-only-P-r.txt", 2, "statement latencies of all 2"},
		{"ycsb/ycsb017-basicdb-load.txt", 3, ""},
		{"ycsb/go-ycsb101-pg-load.txt", 2, ""},
	} {
		text := fixture(t, c.fixture)
		ls := strings.SplitAfter(strings.TrimRight(text, "\n")+"\n", "\n")
		cut := strings.Join(ls[:len(ls)-1-c.drop], "")
		wantRefused(t, c.fixture, cut, c.want)
	}
}

// Two outputs of a one-run tool in one file are refused at the line where
// the second starts; list formats import each run.
func TestConcatenatedOutputs(t *testing.T) {
	for _, f := range []string{"pgbench/pg11-simple-update-t.txt", "pgbench/pg16-tpcb-P-r.txt", "sysbench/sb1-oltp-read-only.txt",
		"fio/fio333-randrw-8k-json.txt", "ycsb/go-ycsb101-redis-workloada.txt", "ycsb/ycsb017-basicdb-load.txt"} {
		text := fixture(t, f)
		// Refused at a line of the second output: where the parser
		// stumbles on it, else where it starts.
		second := strings.Count(text, "\n") + 1
		_, _, err := parse(f, text+text)
		if err == nil {
			t.Errorf("%s twice: accepted", f)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line < second {
			t.Errorf("%s twice: %v, want it refused at line %d or later", f, err, second)
		}
	}
	for _, f := range []string{"redis-benchmark/redis7-default-get-set.txt", "mysqlslap/mysqlslap-multi-concurrency.txt"} {
		text := fixture(t, f)
		_, one, err := parse(f, text)
		if err != nil {
			t.Fatal(err)
		}
		_, two, err := parse(f, text+text)
		if err != nil || len(two) != 2*len(one) {
			t.Errorf("%s twice: %d runs, %v; want %d runs", f, len(two), err, 2*len(one))
		}
	}
}

// Values out of their domain are refused at their line.
func TestImpossibleValuesRefused(t *testing.T) {
	pg := fixture(t, "pgbench/pg16-tpcb-P-r.txt")
	for _, c := range []struct{ old, new, want string }{
		{"number of clients: 4", "number of clients: -2", "pg16-tpcb-P-r.txt:11:"},
		{"tps = 720.836790", "tps = 1e40", ""},
		{"tps = 720.836790", "tps = 99999999999999999999.0", "pg16-tpcb-P-r.txt:20: tps: 99999999999999999999.0 is out of range"},
		{"duration: 5 s", "duration: -5 s", "pg16-tpcb-P-r.txt:14:"},
		{"duration: 5 s", "duration: 0 s", "pg16-tpcb-P-r.txt:14:"},
		{"latency average = 5.504 ms", "latency average = NaN ms", "pg16-tpcb-P-r.txt:17:"},
		{"progress: 2.0 s, 1207.0 tps", "progress: 2.0 s, 12070000000000000000.0 tps", "pg16-tpcb-P-r.txt:4:"},
	} {
		if !strings.Contains(pg, c.old) {
			t.Fatalf("fixture lacks %q", c.old)
		}
		wantRefused(t, "pg16-tpcb-P-r.txt", strings.Replace(pg, c.old, c.new, 1), c.want)
	}
	sb := fixture(t, "sysbench/sb1-oltp-read-only.txt")
	for _, c := range []struct{ re, new, want string }{
		{`transactions:\s+\d+`, "transactions:                        -4", ""},
		{`Number of threads: \d+`, "Number of threads: -2", ""},
	} {
		re := regexp.MustCompile(c.re)
		if !re.MatchString(sb) {
			t.Fatalf("sysbench fixture lacks %s", c.re)
		}
		wantRefused(t, "sb.txt", re.ReplaceAllString(sb, c.new), c.want)
	}
	fio := fixture(t, "fio/fio333-randrw-8k-json.txt")
	wantRefused(t, "fio.json", regexp.MustCompile(`"iops" : [\d.]+`).ReplaceAllString(fio, `"iops" : -5.0`), "fio.json:8: fio job randrw: throughput -10 is out of range")
}

func TestYCSBThreadcountInDomain(t *testing.T) {
	y := fixture(t, "ycsb/go-ycsb101-redis-workloada.txt")
	wantRefused(t, "y.txt", strings.Replace(y, `"threadcount"="4"`, `"threadcount"="-2"`, 1), "y.txt:10: threadcount -2 is out of range")
}

func TestYCSBJavaValuesInDomain(t *testing.T) {
	y := fixture(t, "ycsb/ycsb017-basicdb-load.txt")
	re := regexp.MustCompile(`\[OVERALL\], Throughput\(ops/sec\), [\d.E]+`)
	if !re.MatchString(y) {
		t.Fatal("fixture lacks the OVERALL throughput")
	}
	wantRefused(t, "y.txt", re.ReplaceAllString(y, "[OVERALL], Throughput(ops/sec), 1e40"), "out of range")
	wantRefused(t, "y.txt", re.ReplaceAllString(y, "[OVERALL], Throughput(ops/sec), -5"), "out of range")
}
