package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// A run's hook records are stored with it and read back as they were; a
// run without any reads back none.
func TestHooksRoundTrip(t *testing.T) { eachDialect(t, testHooksRoundTrip) }

func testHooksRoundTrip(t *testing.T, s *Store) {
	with, without := sampleRun(t, 1), sampleRun(t, 2)
	with.Hooks = []result.HookRecord{
		{Hook: result.HookBeforeRun, Command: "psql postgres://u:xxxxx@db -c checkpoint", Started: time.Date(2025, 6, 1, 12, 0, 1, 5, time.UTC),
			Duration: 1500 * time.Millisecond, ExitCode: 0, Output: "CHECKPOINT"},
		{Hook: result.HookRestart, Command: "systemctl restart postgresql", Before: "Q1.1", Started: time.Date(2025, 6, 1, 12, 0, 3, 0, time.UTC),
			Duration: time.Second, ExitCode: 1, Error: "exit status 1", Output: "Failed to restart\nsee journalctl"},
	}
	for _, r := range []*result.Run{with, without} {
		if _, err := s.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := s.Runs(Filter{})
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	if !reflect.DeepEqual(runs[0].Hooks, with.Hooks) {
		t.Errorf("hooks read back as\n%#v\nwant\n%#v", runs[0].Hooks, with.Hooks)
	}
	if runs[1].Hooks != nil {
		t.Errorf("a run without hooks read back %#v", runs[1].Hooks)
	}
}
