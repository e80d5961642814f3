package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// The cumulative latency table takes its thresholds from --latency-shares,
// else from the latency_shares of the study the runs were made from (kept
// in the results file), else the defaults; bad thresholds are refused in
// one line naming the flag.
func TestReportLatencySharesFromStudyAndFlag(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("[study]\nname = \"sh\"\nlatency_shares = [\"2ms\", \"20ms\"]\n[[target]]\nname = \"a\"\nurl = \"sqlite:a.db\"\n[[workload]]\nkind = \"tpcb\"\n")
	if err := s.SaveStudy("h1", "sh", "sh.toml", src); err != nil {
		t.Fatal(err)
	}
	// 600 requests at 1 ms, 300 at 10 ms, 100 at 30 ms.
	h := hist.New()
	for v, n := range map[int64]int64{1000: 600, 10000: 300, 30000: 100} {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "sh", StudyHash: "h1", Target: "a", Workload: "tpcb", Kind: "tpcb",
		Params: map[string]any{"scale": int64(1)}, Clients: 1, Repetition: 1, Status: result.StatusOK,
		Summary: result.Summary{Throughput: 100, Transactions: 1000},
		Ops:     []result.Op{{Name: "tx", Count: 1000, Histogram: enc}}}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	o := fairbench(t, dir, "report")
	if o.code != 0 || !containsLine(o.stdout, "a tpcb - 1 60.00 90.00 30.015") || !strings.Contains(o.stdout, "≤ 2 ms %  ≤ 20 ms %") {
		t.Errorf("the study's thresholds (2 ms: 60 %%, 20 ms: 90 %%):\n%s%s", o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "report", "--latency-shares", "500us,5ms,50ms")
	if o.code != 0 || !containsLine(o.stdout, "a tpcb - 1 0.00 60.00 100.00 30.015") {
		t.Errorf("the flag's thresholds:\n%s%s", o.stdout, o.stderr)
	}
	o = fairbench(t, dir, "report", "--latency-shares", "none")
	if o.code != 0 || strings.Contains(o.stdout, "cumulative latency") {
		t.Errorf("--latency-shares none still prints the table:\n%s", o.stdout)
	}
	o = fairbench(t, dir, "report", "--latency-shares", "5ms,1ms")
	if o.code == 0 || !strings.Contains(o.stderr, "--latency-shares 5ms,1ms: thresholds must increase") {
		t.Errorf("decreasing thresholds: exit %d, %s", o.code, o.stderr)
	}
}

// containsLine reports whether a line of s has exactly the fields of want.
func containsLine(s, want string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.Join(strings.Fields(l), " ") == want {
			return true
		}
	}
	return false
}
