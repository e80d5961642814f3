package store

import (
	"reflect"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Copying a file into a store of each dialect and back into a new file keeps
// every run, study file and imported-file record; copying again skips them.
func TestCopyRoundTrip(t *testing.T) {
	src := mustOpen(t, dialects[0].fresh(t))
	if err := src.SaveStudy("hash-a", "cpu-gen", "study.toml", []byte("name = 'cpu-gen'")); err != nil {
		t.Fatal(err)
	}
	appendAll(t, src, sampleRun(t, 1), sampleRun(t, 2))
	failed := run("s", "h", "a", "x", result.StatusFailed) // no start or end time
	appendAll(t, src, failed, run("s", "h", "a", "x", result.StatusFailed))
	imported := []*result.Run{sampleRun(t, 3)}
	imported[0].Source, imported[0].StudyHash = "pgbench", ""
	if err := src.AppendRuns(imported, &ImportedFile{Hash: "filehash", Name: "out.txt", StudyName: "import", Target: "x", Runs: 1}); err != nil {
		t.Fatal(err)
	}
	want := loadRuns(t, src)
	if len(want) != 5 {
		t.Fatalf("%d runs in the source", len(want))
	}
	eachLocation(t, func(t *testing.T, loc string) {
		mid := mustOpen(t, loc)
		c, err := Copy(src, mid)
		if err != nil {
			t.Fatal(err)
		}
		// The two failed runs without times are one run to Copy.
		if (c != CopyCounts{Runs: 4, RunsSkipped: 1, Studies: 1, Files: 1}) {
			t.Errorf("first copy: %+v", c)
		}
		c, err = Copy(src, mid)
		if err != nil {
			t.Fatal(err)
		}
		if (c != CopyCounts{RunsSkipped: 5, StudiesSkipped: 1, FilesSkipped: 1}) {
			t.Errorf("second copy: %+v", c)
		}
		dst := mustOpen(t, dialects[0].fresh(t))
		if _, err := Copy(mid, dst); err != nil {
			t.Fatal(err)
		}
		got := loadRuns(t, dst)
		wantCopied := append(append([]*result.Run{}, want[:3]...), want[4])
		if !reflect.DeepEqual(got, wantCopied) {
			t.Errorf("runs after the round trip differ:\n got %+v\nwant %+v", got, wantCopied)
		}
		var content []byte
		if err := dst.db.QueryRow("SELECT content FROM studies WHERE hash = 'hash-a'").Scan(&content); err != nil || string(content) != "name = 'cpu-gen'" {
			t.Errorf("study file after the round trip: %q, %v", content, err)
		}
		f, ok, err := dst.Imported("filehash")
		if err != nil || !ok || f.Name != "out.txt" || f.Runs != 1 {
			t.Errorf("imported file record after the round trip: %+v %v %v", f, ok, err)
		}
	})
}

// loadRuns reads every run without its id.
func loadRuns(t *testing.T, s *Store) []*result.Run {
	t.Helper()
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		r.ID = 0
	}
	return runs
}
