package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// GoTPC puts the pinned go-tpc that scripts/test-servers.sh builds
// (FAIRBENCH_TEST_GOTPC) first on the test's PATH and returns its path.
func GoTPC(t *testing.T) string {
	t.Helper()
	bin := need(t, "FAIRBENCH_TEST_GOTPC")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("FAIRBENCH_TEST_GOTPC: %v (scripts/test-servers.sh builds it)", err)
	}
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}
