package sqlite

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// SQLite's cache_size is KiB when negative, pages when positive; its runs
// are in-process even when recorded before the runner said so.
func TestEngineFacts(t *testing.T) {
	for _, c := range []struct {
		settings map[string]string
		want     int64
	}{
		{map[string]string{"cache_size": "-2000"}, 2000 << 10},
		{map[string]string{"cache_size": "1000", "page_size": "4096"}, 1000 * 4096},
		{map[string]string{"cache_size": "1000"}, 0},
		{map[string]string{}, 0},
	} {
		db := result.Database{Engine: engineName, Settings: c.settings}
		if got, _ := db.Cache(); got != c.want {
			t.Errorf("settings %v: cache %d, want %d", c.settings, got, c.want)
		}
	}
	if !(result.Environment{Database: result.Database{Engine: engineName}}).EngineInProcess() {
		t.Error("a SQLite run recorded without engine_in_process is not in-process")
	}
}
