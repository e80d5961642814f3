package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// After ad-hoc runs, report shows each run as run summarised it, the most
// recent last and the last N only, each named by what differs between them,
// with how to find studies: no study tables over unrelated runs, no empty
// comparisons (issue 40 item 8).
func TestReportOfAdHocRunsReadsLikeTheirSummaries(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--workload", "tpcb", "-T", "1", "-c", "1"},
		{"--workload", "ycsb", "--preset", "a", "-p", "recordcount=200", "-p", "operationcount=100"},
		{"--workload", "tpcb", "-T", "1", "-c", "2"},
	} {
		if o := fairbench(t, dir, append([]string{"run", "--target", "sqlite:adhoc.db"}, args...)...); o.code != 0 {
			t.Fatalf("run %q: exit %d: %s", args, o.code, o.stderr)
		}
	}
	o := fairbench(t, dir, "report", "--last", "2")
	if o.code != 0 {
		t.Fatalf("report: exit %d: %s", o.code, o.stderr)
	}
	lines := strings.Split(o.stdout, "\n")
	if !strings.HasPrefix(lines[0], "3 ad-hoc runs in fairbench.db") || !strings.Contains(o.stdout, "'fairbench studies'") {
		t.Errorf("the report does not say what it shows and where studies are:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "1 earlier run not shown: --last 3 shows more, --last 0 all of them") {
		t.Errorf("the report does not say that run 1 is left out:\n%s", o.stdout)
	}
	var heads []string
	for _, m := range regexp.MustCompile(`(?m)^== run (\d+) · [-0-9: ]+ · (.*)$`).FindAllStringSubmatch(o.stdout, -1) {
		heads = append(heads, m[1]+" "+m[2])
	}
	if want := []string{"2 sqlite:adhoc.db · ycsb, 1 client", "3 sqlite:adhoc.db · tpcb, 2 clients"}; !slices.Equal(heads, want) {
		t.Errorf("runs shown %q, want %q\n%s", heads, want, o.stdout)
	}
	for _, want := range []string{"[OVERALL], Throughput(ops/sec)", "number of transactions actually processed"} {
		if strings.Count(o.stdout, want) != 1 {
			t.Errorf("the report does not show %q once, as run printed it:\n%s", want, o.stdout)
		}
	}
	for _, table := range []string{"Findings", "Peak headline", "per op type", "cumulative latency"} {
		if strings.Contains(o.stdout, table) {
			t.Errorf("the ad-hoc report has the study table %q:\n%s", table, o.stdout)
		}
	}
	if all := fairbench(t, dir, "report", "--last", "0"); strings.Count(all.stdout, "\n== run ") != 3 || strings.Contains(all.stdout, "not shown") {
		t.Errorf("report --last 0 does not show every run:\n%s", all.stdout)
	}
	if neg := fairbench(t, dir, "report", "--last", "-1"); neg.code != 1 || !strings.Contains(neg.stderr, "--last -1: give how many") {
		t.Errorf("report --last -1: exit %d, want 1 and a one-line refusal: %s", neg.code, neg.stderr)
	}
}
