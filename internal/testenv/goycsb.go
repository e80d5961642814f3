package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// GoYCSB puts the pinned go-ycsb that scripts/test-servers.sh builds
// (FAIRBENCH_TEST_GO_YCSB) first on the test's PATH and returns its path.
func GoYCSB(t *testing.T) string {
	t.Helper()
	bin := need(t, "FAIRBENCH_TEST_GO_YCSB")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("FAIRBENCH_TEST_GO_YCSB: %v (scripts/test-servers.sh builds it)", err)
	}
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}
