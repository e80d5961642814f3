package store

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A results file written before schema 3 (testdata/schema2, made by fairbench
// at 23c5a23) opens, migrates and reads back every run, with its series
// quantiles and without interval histograms.
func TestSchema2FileMigrates(t *testing.T) {
	src, err := os.Open("testdata/schema2/schema2.db")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "old.db")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("opening a schema 2 file: %v", err)
	}
	defer s.Close()
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 12 {
		t.Fatalf("%d runs, the file holds 12", len(runs))
	}
	for _, r := range runs {
		if r.Summary.Metric != nil {
			t.Fatalf("run %d has a headline metric it never stored", r.ID)
		}
		if m := r.Headline(); m.Value != r.Summary.Throughput || m.Unit != "tps" {
			t.Fatalf("run %d: headline %+v, want its throughput %.1f tps", r.ID, m, r.Summary.Throughput)
		}
		if len(r.Series) == 0 || len(r.Ops) == 0 {
			t.Fatalf("run %d: %d series points, %d ops", r.ID, len(r.Series), len(r.Ops))
		}
		for _, p := range r.Series {
			if p.Hists != nil {
				t.Fatalf("run %d second %d: interval histograms appeared in an old file", r.ID, p.Second)
			}
			if p.Ops > 0 && p.P99 <= 0 {
				t.Fatalf("run %d second %d: p99 lost", r.ID, p.Second)
			}
		}
	}
	var v int
	if err := s.db.QueryRow("SELECT value FROM meta WHERE key = 'schema_version'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() {
		t.Fatalf("migrated file at version %d, want %d", v, SchemaVersion())
	}
}
