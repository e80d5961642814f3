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
	viewed := sampleRun(t, 1)
	viewed.ServerView = &result.ServerView{Interval: 1e9, Samples: 3, Seconds: 2, Active: 4,
		Counters:    []result.ViewCounter{{Name: "pg_stat_wal.wal_bytes", Unit: "bytes", Delta: 2048, PerSecond: 1024}},
		Gauges:      []result.ViewGauge{{Name: "buffer hit ratio", Unit: "%", Mean: 99.5, Max: 100}},
		Waits:       []result.ViewWait{{Name: "IO:WALSync", Samples: 3}, {Name: "CPU", Samples: 1}},
		Buckets:     []result.ViewBucket{{From: 0, To: 1, Waits: map[string]int64{"IO:WALSync": 3, "CPU": 1}}},
		Unavailable: []string{"wait events of other roles' sessions: GRANT pg_read_all_stats (or pg_monitor) TO bench"}}
	appendAll(t, src, viewed, sampleRun(t, 2))
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
		if len(got) == 0 || !reflect.DeepEqual(got[0].ServerView, viewed.ServerView) {
			t.Errorf("the server view after the round trip differs")
		}
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
