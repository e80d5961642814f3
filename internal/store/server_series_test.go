package store

import (
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Migration 2 adds the server-side series; a point without a sample reads back
// as nil, one with a sample reads back equal.
func TestServerSeriesRoundTrip(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if schemaVersion() < 2 {
		t.Fatalf("schema version %d", schemaVersion())
	}
	smp := &result.ServerSample{CPU: 87.5, DiskUtil: 42, NetRx: 1e6, NetTx: 2e6}
	r := &result.Run{Source: "fairbench", StudyName: "s", Target: "t", Workload: "w", Kind: "tpcb", Clients: 1,
		Status: result.StatusOK, Series: []result.SeriesPoint{{Second: 1, Ops: 10, Rate: 10}, {Second: 2, Ops: 10, Rate: 10, Server: smp}}}
	if _, err := s.AppendRun(r); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := runs[0].Series
	if len(got) != 2 || got[0].Server != nil || got[1].Server == nil || *got[1].Server != *smp {
		t.Errorf("series read back as %+v", got)
	}
}
