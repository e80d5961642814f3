package postgres

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

func TestSettingBytes(t *testing.T) {
	for in, want := range map[string]float64{"16384 8kB": 128 << 20, "4GB": 4 << 30, "4096 MB": 4 << 30, "on": 0, "100": 0} {
		if got := settingBytes(in); got != want {
			t.Errorf("SettingBytes(%q) = %v, want %v", in, got, want)
		}
	}
}

// A PostgreSQL environment recorded before the cache size was (an old
// results file) still gives shared_buffers as the cache, and its paths and
// port as installation-only settings.
func TestRecordedEnvironmentGivesSharedBuffers(t *testing.T) {
	var env result.Environment
	old := `{"database":{"engine":"postgresql","server_version":"16.4","settings":{"shared_buffers":"16384 8kB","port":"5432","work_mem":"4096 kB"}}}`
	if err := env.UnmarshalJSON([]byte(old)); err != nil {
		t.Fatal(err)
	}
	if b, name := env.Database.Cache(); b != 128<<20 || name != "shared_buffers" {
		t.Fatalf("Cache() = %d, %q; want 128 MiB of shared_buffers", b, name)
	}
	if !env.Database.InstallationOnly("port") || env.Database.InstallationOnly("work_mem") {
		t.Fatal("port should be installation-only, work_mem not")
	}
}
