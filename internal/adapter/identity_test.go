package adapter

import (
	"path/filepath"
	"testing"
)

// identities parses a fixture and returns its runs' identities.
func identities(t *testing.T, p string) []*RunIdentity {
	t.Helper()
	tool, runs, err := parse(p, readFixture(t, p))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Identity == nil {
		t.Fatalf("%s: %s has no run identity", p, tool.Name)
	}
	var ids []*RunIdentity
	for _, r := range runs {
		ids = append(ids, tool.Identity(r))
	}
	return ids
}

// The two output files of one run (memtier's text and JSON, OSB's results
// file or console table and its test_run.json) are one run; outputs of
// different runs are not, even when their counts agree (the two
// repetitions of a count-bounded memtier --requests run: same counts, the
// JSON's start time two seconds apart, and no start time in the text).
func TestRunIdentityMatchesOneRunsFiles(t *testing.T) {
	mt := func(name string) string { return filepath.Join("memtier_benchmark", name) }
	osb := func(name string) string { return filepath.Join("opensearch-benchmark", name) }
	same := [][2]string{
		{mt("mt23-json.txt"), mt("mt23-json.json")},
		{mt("mt23-requests.txt"), mt("mt23-requests.json")},
		{mt("mt23-requests-rep1.txt"), mt("mt23-requests-rep1.json")},
		{mt("mt23-requests-rep2.txt"), mt("mt23-requests-rep2.json")},
		{mt("mt23-run-count-2.txt"), mt("mt23-run-count-2.json")},
		{mt("mt23-run-count-2-all-runs.txt"), mt("mt23-run-count-2-all-runs.json")},
		{mt("mt23-command-incr.txt"), mt("mt23-command-incr.json")},
		{mt("mt23-get-heavy-misses.txt"), mt("mt23-get-heavy-misses.json")},
		{mt("mt23-set-only-pipeline16.txt"), mt("mt23-set-only-pipeline16.json")},
		{osb("results.md"), osb("test_run-1.json")},
		{osb("results.csv"), osb("test_run-2.json")},
		{osb("results-3.md"), osb("test_run-3.json")},
		{osb("console.txt"), osb("test_run-3.json")},
		{osb("console.txt"), osb("results-3.md")},
	}
	var all []string
	runsOf := map[string][]*RunIdentity{}
	for _, p := range same {
		for _, f := range p {
			if _, ok := runsOf[f]; !ok {
				runsOf[f] = identities(t, f)
				all = append(all, f)
			}
		}
		a, b := runsOf[p[0]], runsOf[p[1]]
		if len(a) != len(b) {
			t.Fatalf("%s and %s: %d and %d runs", p[0], p[1], len(a), len(b))
		}
		for i := range a {
			if ok, why := SameRun(a[i], b[i]); !ok {
				t.Errorf("%s and %s, run %d: not the same run (%s)", p[0], p[1], i+1, why)
			}
		}
	}
	// Every other pairing is two runs.
	isSame := map[[2]string]bool{}
	for _, p := range same {
		isSame[p], isSame[[2]string{p[1], p[0]}] = true, true
	}
	isSame[[2]string{osb("test_run-3.json"), osb("results-3.md")}] = true
	isSame[[2]string{osb("results-3.md"), osb("test_run-3.json")}] = true
	for _, f := range all {
		for _, g := range all {
			for i, a := range runsOf[f] {
				for j, b := range runsOf[g] {
					if (f == g && i == j) || (isSame[[2]string{f, g}] && i == j) {
						continue
					}
					if ok, _ := SameRun(a, b); ok {
						t.Errorf("%s run %d and %s run %d: taken for one run", f, i+1, g, j+1)
					}
				}
			}
		}
	}
}

// Start times decide when both files print one; a run with nothing
// comparable is never taken for another.
func TestRunIdentityStartAndNothingToCompare(t *testing.T) {
	a := identities(t, filepath.Join("memtier_benchmark", "mt23-json.json"))[0]
	b := *a
	b.Start = a.Start.Add(5e9)
	if ok, why := SameRun(a, &b); ok || why != "other start times" {
		t.Errorf("5 s apart: %v %q", ok, why)
	}
	empty := &RunIdentity{Tool: a.Tool, Kind: a.Kind}
	if ok, _ := SameRun(empty, empty); ok {
		t.Error("two identities without measures taken for one run")
	}
}
