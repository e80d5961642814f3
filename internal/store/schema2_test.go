package store

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
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
	if v != schemaVersion() {
		t.Fatalf("migrated file at version %d, want %d", v, schemaVersion())
	}
}

// Every environment in the schema 2 file reads into the typed
// result.Environment and writes back as the same JSON object: results files
// written while the environment was a map need no data migration.
func TestSchema2EnvironmentsRoundTrip(t *testing.T) {
	s, err := Open(copyFixture(t, "testdata/schema2/schema2.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.db.Query("SELECT id, env FROM runs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var stored string
		if err := rows.Scan(&id, &stored); err != nil {
			t.Fatal(err)
		}
		var env result.Environment
		if err := json.Unmarshal([]byte(stored), &env); err != nil {
			t.Fatalf("run %d: %v", id, err)
		}
		if env.Host.Threads == 0 || env.Database.Engine == "" || env.Client.IO == "" {
			t.Fatalf("run %d: typed fields not read from %s: %+v", id, stored, env)
		}
		again, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if want := canonicalJSON(t, stored); string(again) != want {
			t.Fatalf("run %d: environment changed on the way through the typed struct:\nstored %s\nagain  %s", id, want, again)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 12 {
		t.Fatalf("%d environments read, the file holds 12 runs", n)
	}
}

// canonicalJSON re-encodes a JSON object as a map would: keys sorted, no
// spaces, numbers as written.
func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func copyFixture(t *testing.T, from string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(from))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
