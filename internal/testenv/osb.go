package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// OSB puts the directory of the opensearch-benchmark that
// scripts/install-osb.sh printed (FAIRBENCH_TEST_OSB, the binary's path)
// first on the test's PATH and returns the binary's path. Like HammerDB, OSB
// is not part of scripts/test-servers.sh: without the variable the test is
// skipped, even under FAIRBENCH_REQUIRE_SERVERS.
func OSB(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("FAIRBENCH_TEST_OSB")
	if bin == "" {
		t.Skip("FAIRBENCH_TEST_OSB not set: OpenSearch Benchmark test skipped (scripts/install-osb.sh DIR prints the path to set it to)")
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		t.Fatalf("FAIRBENCH_TEST_OSB=%s: not the opensearch-benchmark binary (%v); scripts/install-osb.sh DIR prints its path", bin, err)
	}
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}
