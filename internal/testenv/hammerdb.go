package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// HammerDB returns the environment a fairbench command needs to run
// HammerDB 4.12: the directory scripts/install-hammerdb.sh printed
// (FAIRBENCH_TEST_HAMMERDB, which scripts/test-servers.sh sets, the build
// cached in .bin/) first on its PATH, as NAME=VALUE for exec.Cmd.Env, so
// that the HammerDB tests can run in parallel (t.Setenv cannot); skipped
// without it, failed under FAIRBENCH_REQUIRE_SERVERS=1.
// HammerDB runs in whole minutes, so the -short pass (the race detector's)
// skips its tests: they run in the full pass.
func HammerDB(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("HammerDB runs whole minutes: its tests run without -short")
	}
	dir := need(t, "FAIRBENCH_TEST_HAMMERDB")
	if _, err := os.Stat(filepath.Join(dir, "hammerdbcli")); err != nil {
		t.Fatalf("FAIRBENCH_TEST_HAMMERDB: %v (scripts/install-hammerdb.sh DIR prints the directory that holds hammerdbcli)", err)
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
}
