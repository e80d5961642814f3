package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// OSB puts the directory of the opensearch-benchmark that
// scripts/install-osb.sh installed (FAIRBENCH_TEST_OSB, the binary's path,
// which scripts/test-servers.sh sets) first on the test's PATH and returns
// the binary's path; skipped without it, failed under
// FAIRBENCH_REQUIRE_SERVERS=1. OSB refuses to start while another OSB runs
// on the machine ("only one OSB benchmark is allowed to run at the same
// time", exit 64), so the tests that run it take turns: the test holds a
// machine-wide lock until it ends.
func OSB(t *testing.T) string {
	t.Helper()
	bin := osb(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}

// OSBEnv is OSB for a test that runs in parallel (t.Setenv cannot): the
// PATH with OSB's directory first, as NAME=VALUE for exec.Cmd.Env, as
// HammerDB gives it.
func OSBEnv(t *testing.T) []string {
	t.Helper()
	return []string{"PATH=" + filepath.Dir(osb(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

func osb(t *testing.T) string {
	t.Helper()
	bin := need(t, "FAIRBENCH_TEST_OSB")
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		t.Fatalf("FAIRBENCH_TEST_OSB=%s: not the opensearch-benchmark binary (%v); scripts/install-osb.sh DIR prints its path", bin, err)
	}
	exclusive(t, "fairbench-test-osb.lock", "the machine's one OpenSearch Benchmark run")
	return bin
}
