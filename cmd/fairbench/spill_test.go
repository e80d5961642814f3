package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// An ad-hoc run spills its interval histograms to the results file as it
// measures; its memtier JSON prints each second's latencies from them, so
// the summary reads the stored series back: every second that completed
// requests has its latencies in the Time-Serie.
func TestAdHocRunPrintsPerSecondLatenciesOfSpilledSeries(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--workload", "kv", "--target", "pebble:"+filepath.Join(dir, "kv"), "--results", "r.db",
		"-t", "1", "-c", "1", "--ratio", "1:1", "--key-maximum", "100", "--test-time", "3", "--json-out-file", "out.json")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	text, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		All struct {
			Totals struct {
				Series map[string]map[string]any `json:"Time-Serie"`
			}
		} `json:"ALL STATS"`
	}
	if err := json.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	seconds := 0
	for sec, fields := range doc.All.Totals.Series {
		if n, _ := fields["Count"].(float64); n == 0 {
			continue
		}
		seconds++
		if _, ok := fields["Max Latency"]; !ok {
			t.Errorf("second %s: %v requests but no latencies: %v", sec, fields["Count"], fields)
		}
	}
	runs := runsIn(t, filepath.Join(dir, "r.db"))
	if len(runs) != 1 || len(runs[0].Series) == 0 {
		t.Fatalf("stored %d runs, want one with a series", len(runs))
	}
	want := 0
	for _, pt := range runs[0].Series {
		if pt.Second >= 1 && !pt.Missed && pt.Ops > 0 {
			if pt.Hists[0].Histogram == "" {
				t.Errorf("stored second %d has no interval histogram", pt.Second)
			}
			want++
		}
	}
	if seconds != want || want < 2 {
		t.Fatalf("the Time-Serie counts requests in %d seconds, the stored series in %d (want at least 2):\n%s", seconds, want, text)
	}
}
