package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file already imported is skipped (by content, whatever its name) unless
// --again; each file's runs are stored together.
func TestImportSkipsAFileAlreadyImported(t *testing.T) {
	dir := t.TempDir()
	f := fixtures(t, "redis-benchmark", "redis7-default-get-set.txt") // 2 runs
	o := fairbench(t, dir, "import", "--target", "r", f)
	if o.code != 0 || !strings.Contains(o.stderr, "2 runs imported") {
		t.Fatalf("first import: %d %s", o.code, o.stderr)
	}
	// The same content under another name, and the same file twice in one call.
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.txt"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	o = fairbench(t, dir, "import", "--target", "r", "copy.txt", f)
	if o.code != 0 || !strings.Contains(o.stderr, "0 runs imported") || !strings.Contains(o.stderr, "copy.txt: skipped: already imported (as "+f) ||
		!strings.Contains(o.stderr, "--again") {
		t.Fatalf("second import: %d %s", o.code, o.stderr)
	}
	if n := len(runsIn(t, filepath.Join(dir, defaultResults))); n != 2 {
		t.Fatalf("%d runs stored, want 2", n)
	}
	o = fairbench(t, dir, "import", "--again", "--target", "r", "copy.txt")
	if o.code != 0 || !strings.Contains(o.stderr, "2 runs imported") {
		t.Fatalf("--again: %d %s", o.code, o.stderr)
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 4 || runs[2].Repetition != 2 || runs[3].Repetition != 2 {
		t.Fatalf("after --again: %d runs, want 4 with the last two as repetition 2", len(runs))
	}
}

// One run given as two of its output files (memtier's text and JSON, OSB's
// results.md and test_run.json) is stored once: by its identity (start time
// where both print it, counts, measured values), not by the files' content,
// within one import and against the runs already stored. The two
// repetitions of a count-bounded run (same counts) are both stored.
func TestImportSkipsTheSameRunFromItsOtherFile(t *testing.T) {
	dir := t.TempDir()
	mt := func(name string) string { return fixtures(t, "memtier_benchmark", name) }
	o := fairbench(t, dir, "import", "--target", "r", "-P", "1", "-d", "32", mt("mt23-requests-rep1.txt"), mt("mt23-requests-rep2.txt"))
	if o.code != 0 || !strings.Contains(o.stderr, "2 runs imported") {
		t.Fatalf("the texts of two repetitions: %d %s", o.code, o.stderr)
	}
	o = fairbench(t, dir, "import", "--target", "r", mt("mt23-requests-rep2.json"), mt("mt23-requests-rep1.json"))
	for _, want := range []string{
		"skipped " + mt("mt23-requests-rep2.json") + ": the same run as " + mt("mt23-requests-rep2.txt") + " imported at ",
		"skipped " + mt("mt23-requests-rep1.json") + ": the same run as " + mt("mt23-requests-rep1.txt") + " imported at ",
		"0 runs imported",
	} {
		if o.code != 0 || !strings.Contains(o.stderr, want) {
			t.Errorf("their JSONs: %d %s\nwant %q", o.code, o.stderr, want)
		}
	}
	// Given together, the file with the start time is stored, whatever the
	// order; of two without, the first.
	osb := func(name string) string { return fixtures(t, "opensearch-benchmark", name) }
	o = fairbench(t, dir, "import", "--target", "r", "--clients", "2", osb("results.md"), osb("test_run-1.json"), osb("results-3.md"), osb("console.txt"))
	for _, want := range []string{
		"skipped " + osb("results.md") + ": the same run as " + osb("test_run-1.json") + ", given in this import and stored instead",
		"skipped " + osb("console.txt") + ": the same run as " + osb("results-3.md") + " imported in this import",
		"2 runs imported",
	} {
		if o.code != 0 || !strings.Contains(o.stderr, want) {
			t.Errorf("OSB files together: %d %s\nwant %q", o.code, o.stderr, want)
		}
	}
	runs := runsIn(t, filepath.Join(dir, defaultResults))
	if len(runs) != 4 || runs[2].Env.Extra["imported_from"] != osb("test_run-1.json") || runs[3].Env.Extra["imported_from"] != osb("results-3.md") {
		t.Fatalf("%d runs stored, want 4, the third from test_run-1.json", len(runs))
	}
	o = fairbench(t, dir, "import", "--again", "--target", "r", mt("mt23-requests-rep1.json"))
	if o.code != 0 || !strings.Contains(o.stderr, "1 run imported") {
		t.Fatalf("--again: %d %s", o.code, o.stderr)
	}
}

// kill -9 while a file's runs are being written leaves none of them: each
// file is one transaction. The file holds 6 000 redis-benchmark runs; the
// process is killed once the transaction has spilled pages into the WAL.
func TestSIGKILLDuringImportLeavesNothingPartial(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(fixtures(t, "redis-benchmark", "redis7-default-get-set.txt"))
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "many.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat(string(b), 3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A results file that already holds one import, which must survive.
	if o := fairbench(t, dir, "import", "--target", "r", "--clients", "50", fixtures(t, "redis-benchmark", "redis7-quiet.txt")); o.code != 0 {
		t.Fatalf("first import: %s", o.stderr)
	}
	before := len(runsIn(t, filepath.Join(dir, defaultResults)))
	cmd := exec.Command(binary, "import", "--target", "r", big)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wal := filepath.Join(dir, defaultResults+"-wal")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if st, err := os.Stat(wal); err == nil && st.Size() > 1<<20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the import never wrote 1 MB into the WAL")
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("the import ended by itself before the kill (%v): make the file bigger", err)
	}
	if n := len(runsIn(t, filepath.Join(dir, defaultResults))); n != before {
		t.Fatalf("%d runs stored after kill -9 during the import, want the %d from before", n, before)
	}
	// Not recorded as imported either: importing it again stores it.
	o := fairbench(t, dir, "import", "--target", "r", big)
	if o.code != 0 || !strings.Contains(o.stderr, "6000 runs imported") {
		t.Fatalf("import after the kill: %d %s", o.code, o.stderr)
	}
}
