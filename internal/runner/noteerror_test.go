package runner

import (
	"errors"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Every error class keeps its first text and takes the lock-free path from
// then on: noted has a flag for each of result.ErrorClasses (it was sized 8
// when a ninth class, not_found, was added, which then took the lock on
// every failing operation).
func TestNoteErrorKeepsTheFirstTextOfEveryClass(t *testing.T) {
	var m executor
	for i, class := range result.ErrorClasses {
		m.noteError(class, errors.New("first "+string(class)))
		m.noteError(class, errors.New("second "+string(class)))
		if got := m.firstErrs[class]; got != "first "+string(class) {
			t.Errorf("%s: kept %q, want its first error", class, got)
		}
		if !m.noted[i].Load() {
			t.Errorf("%s (class %d of %d): not marked noted, so every later error of it takes the lock", class, i+1, len(result.ErrorClasses))
		}
	}
	m.noteError(result.ErrorClass("unlisted"), errors.New("kept all the same"))
	if got := m.firstErrs["unlisted"]; got != "kept all the same" {
		t.Errorf("a class outside result.ErrorClasses: kept %q", got)
	}
	m.resetOutage()
	for i, class := range result.ErrorClasses {
		if m.noted[i].Load() {
			t.Errorf("%s still noted after resetOutage", class)
		}
	}
	if len(m.firstErrs) != 0 {
		t.Errorf("first errors after resetOutage: %v", m.firstErrs)
	}
}
