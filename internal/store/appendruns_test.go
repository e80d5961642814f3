package store

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// AppendRuns stores all runs and the file record together, or nothing.
func TestAppendRunsAllOrNothing(t *testing.T) { eachDialect(t, testAppendRunsAllOrNothing) }

func testAppendRunsAllOrNothing(t *testing.T, s *Store) {
	mk := func() []*result.Run { return []*result.Run{sampleRun(t, 1), sampleRun(t, 2)} }
	bad := sampleRun(t, 3)
	bad.Env.Set("unencodable", make(chan int))
	rec := &ImportedFile{Hash: "abc", Name: "f.txt", StudyName: "import", Target: "x", Runs: 3}
	if err := s.AppendRuns(append(mk(), bad), rec); err == nil {
		t.Fatal("a run that cannot be encoded was accepted")
	}
	if runs, err := s.Runs(Filter{}); err != nil || len(runs) != 0 {
		t.Fatalf("%d runs stored from a failed AppendRuns (%v)", len(runs), err)
	}
	if _, ok, err := s.Imported("abc"); err != nil || ok {
		t.Fatalf("file recorded by a failed AppendRuns: %v %v", ok, err)
	}
	ok3 := mk()
	rec.Runs = 2
	if err := s.AppendRuns(ok3, rec); err != nil {
		t.Fatal(err)
	}
	if ok3[0].ID == 0 || ok3[1].ID <= ok3[0].ID {
		t.Fatalf("IDs %d %d", ok3[0].ID, ok3[1].ID)
	}
	f, ok, err := s.Imported("abc")
	if err != nil || !ok || f.Name != "f.txt" || f.Runs != 2 || f.Target != "x" || f.ImportedAt.IsZero() {
		t.Fatalf("imported record: %+v %v %v", f, ok, err)
	}
	if runs, _ := s.Runs(Filter{}); len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
}

// A run's error text is stored up to maxErrorText bytes, saying what was cut.
func TestErrorTextIsCapped(t *testing.T) { eachDialect(t, testErrorTextIsCapped) }

func testErrorTextIsCapped(t *testing.T, s *Store) {
	r := sampleRun(t, 1)
	r.Status = result.StatusFailed
	r.Error = strings.Repeat("dial tcp 127.0.0.1:5432: connect: connection refused\n", 400000) // 21 MB
	if _, err := s.AppendRun(r); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(Filter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	got := runs[0].Error
	if len(got) > maxErrorText+100 || !strings.HasPrefix(got, "dial tcp") || !strings.Contains(got, "more bytes of error text not stored") {
		t.Fatalf("stored error text of %d bytes: ...%s", len(got), got[max(0, len(got)-80):])
	}
}

// Import reads the runs of some tools (Filter.Sources) and the record of the
// file a run was imported from, by the name it was given (ImportedAs).
func TestSourcesAndImportedAs(t *testing.T) { eachDialect(t, testSourcesAndImportedAs) }

func testSourcesAndImportedAs(t *testing.T, s *Store) {
	native, tool := sampleRun(t, 1), sampleRun(t, 2)
	tool.Source = "memtier_benchmark"
	if _, err := s.AppendRun(native); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, rec := range []*ImportedFile{
		{Hash: "h1", Name: "run.txt", StudyName: "import", Target: "x", Runs: 1, ImportedAt: old},
		{Hash: "h2", Name: "run.txt", StudyName: "import", Target: "x", Runs: 1, ImportedAt: old.Add(time.Hour)},
	} {
		runs := []*result.Run{}
		if i == 0 {
			runs = append(runs, tool)
		}
		if err := s.AppendRuns(runs, rec); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := s.Runs(Filter{Sources: []string{"memtier_benchmark", "pgbench"}})
	if err != nil || len(runs) != 1 || runs[0].Source != "memtier_benchmark" {
		t.Fatalf("Sources: %d runs, %v", len(runs), err)
	}
	f, ok, err := s.ImportedAs("run.txt")
	if err != nil || !ok || f.Hash != "h2" || !f.ImportedAt.Equal(old.Add(time.Hour)) {
		t.Fatalf("ImportedAs: %+v %v %v", f, ok, err)
	}
	if _, ok, err := s.ImportedAs("other.txt"); ok || err != nil {
		t.Fatalf("ImportedAs an unknown name: %v %v", ok, err)
	}
}
