package store

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// AppendRuns stores all runs and the file record together, or nothing.
func TestAppendRunsAllOrNothing(t *testing.T) {
	s := openTemp(t)
	mk := func() []*result.Run { return []*result.Run{sampleRun(t, 1), sampleRun(t, 2)} }
	bad := sampleRun(t, 3)
	bad.Env = map[string]any{"unencodable": make(chan int)}
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
