package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// HammerDB puts the HammerDB 4.12 directory scripts/install-hammerdb.sh
// printed (FAIRBENCH_TEST_HAMMERDB) first on the test's PATH and returns it.
// Unlike the servers, HammerDB is not part of scripts/test-servers.sh (it
// builds Pgtcl and installs Tcl packages): without the variable the test is
// skipped, even under FAIRBENCH_REQUIRE_SERVERS.
func HammerDB(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FAIRBENCH_TEST_HAMMERDB")
	if dir == "" {
		t.Skip("FAIRBENCH_TEST_HAMMERDB not set: HammerDB test skipped (scripts/install-hammerdb.sh DIR prints the directory to set it to)")
	}
	if _, err := os.Stat(filepath.Join(dir, "hammerdbcli")); err != nil {
		t.Fatalf("FAIRBENCH_TEST_HAMMERDB: %v (scripts/install-hammerdb.sh DIR prints the directory that holds hammerdbcli)", err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}
