package main

import (
	"database/sql"
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

// A results file locked past the busy timeout while a run measures and when
// it ends: the seconds it spilled are refused too, and the run's fallback
// file carries every second's interval histograms, so that importing it
// stores the run whole.
func TestLockedResultsFileFallbackKeepsSpilledHistograms(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "fairbench.db")
	p := startUntilLine(t, dir, "progress: 1.0 s", progressAt(1),
		"run", "--target", "sqlite:f.db", "--workload", "tpcb", "--mode", "select-only", "-c", "1", "-T", "3s", "-P", "1")
	unlock := holdWriteLock(t, results)
	code, _ := p.stop(t, nil)
	unlock()
	files, _ := filepath.Glob(filepath.Join(dir, "fairbench.db.unsaved-*.json"))
	if code != 1 || len(files) != 1 {
		t.Fatalf("exit %d, fallback files %v; want 1 and one file:\n%s", code, files, p.errText())
	}
	if o := fairbench(t, dir, "import", files[0]); o.code != 0 {
		t.Fatalf("import of the fallback file: exit %d\n%s", o.code, o.stderr)
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 {
		t.Fatalf("%d runs stored, want 1", len(runs))
	}
	seconds := 0
	for _, pt := range runs[0].Series {
		if pt.Ops == 0 {
			continue
		}
		seconds++
		for _, iv := range pt.Hists {
			if iv.Count > 0 && iv.Histogram == "" {
				t.Errorf("second %d, op %s: %d requests but no interval histogram", pt.Second, iv.Name, iv.Count)
			}
		}
	}
	if seconds < 3 {
		t.Fatalf("%d seconds with requests stored, want the run's 3", seconds)
	}
	db, err := sql.Open("sqlite", results)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left int
	if err := db.QueryRow("SELECT count(*) FROM spilled_points").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 { // its points were all still pending: they went to the fallback file alone
		t.Errorf("%d spilled rows left behind by the refused run, want 0", left)
	}
}
