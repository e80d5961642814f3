package adapter

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// fakeMarkers is a database as DatasetMarkers see it: its tables, which of
// them fairbench's marker claims, and the markers written.
type fakeMarkers struct {
	tables  []string
	owned   bool
	written []string // "loading dataset" / "ready dataset tables"
}

func (f *fakeMarkers) TableExists(_ context.Context, _ driver.SQL, table string) (bool, error) {
	return slices.Contains(f.tables, table), nil
}
func (f *fakeMarkers) Owns(context.Context, driver.SQL, string, []string) (bool, error) {
	return f.owned, nil
}
func (f *fakeMarkers) MarkLoading(_ context.Context, _ driver.SQL, dataset, _ string) error {
	f.written = append(f.written, "loading "+dataset)
	return nil
}
func (f *fakeMarkers) MarkReady(_ context.Context, _ driver.SQL, dataset, _ string, tables []string) error {
	f.written = append(f.written, "ready "+dataset+" "+strings.Join(tables, ","))
	return nil
}
func (f *fakeMarkers) Tables(context.Context, driver.SQL) ([]string, error) { return f.tables, nil }
func (f *fakeMarkers) DropMarkers(context.Context, driver.SQL) error        { return nil }

func withMarkers(t *testing.T, m DatasetMarkers) {
	t.Helper()
	saved := datasetMarkers
	datasetMarkers = m
	t.Cleanup(func() { datasetMarkers = saved })
}

// A tool's load replaces a table fairbench did not make only with --replace,
// and records the load as under way before its command and as done after.
func TestDataLoadReplacesOnlyTablesFairbenchMade(t *testing.T) {
	ctx := context.Background()
	load := &DataLoad{Tables: []string{"usertable"}, Dataset: "go-ycsb", Params: "recordcount=10"}
	for _, tc := range []struct {
		name           string
		tables         []string
		owned, replace bool
		refused        bool
	}{
		{"empty database", nil, false, false, false},
		{"fairbench's own table", []string{"usertable"}, true, false, false},
		{"someone else's table", []string{"usertable"}, false, false, true},
		{"someone else's table with --replace", []string{"usertable"}, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &fakeMarkers{tables: tc.tables, owned: tc.owned}
			withMarkers(t, m)
			err := load.Prepare(ctx, "ycsb", nil, tc.replace, io.Discard)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "a table usertable that fairbench did not create") || !strings.Contains(err.Error(), "--replace") {
					t.Fatalf("Prepare = %v, want the table named and --replace offered", err)
				}
				if len(m.written) > 0 {
					t.Errorf("a refused load wrote markers: %v", m.written)
				}
				return
			}
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if err := load.Loaded(ctx, "ycsb", nil); err != nil {
				t.Fatalf("Loaded: %v", err)
			}
			if want := []string{"loading go-ycsb", "ready go-ycsb usertable"}; !slices.Equal(m.written, want) {
				t.Errorf("markers written %v, want %v", m.written, want)
			}
		})
	}
}

// A build without the SQL workloads' markers refuses the load rather than
// replacing tables it cannot tell apart.
func TestDataLoadWithoutMarkersRefuses(t *testing.T) {
	withMarkers(t, nil)
	load := &DataLoad{Tables: []string{"usertable"}, Dataset: "go-ycsb"}
	if err := load.Prepare(context.Background(), "ycsb", nil, true, io.Discard); err == nil || !strings.Contains(err.Error(), "no SQL data-set markers") {
		t.Errorf("Prepare without markers = %v", err)
	}
}
