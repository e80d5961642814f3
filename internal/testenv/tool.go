package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Tool returns the path of the peer tool name on the PATH (pgbench,
// sysbench, mysqlslap, redis-benchmark, fio: the ones scripts/test-servers.sh
// installs from Debian's packages). Without it the test is skipped, unless
// FAIRBENCH_REQUIRE_SERVERS=1, where it fails: CI must never pass by skipping
// a tool cell.
func Tool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s is not installed, which scripts/test-servers.sh installs (%v)", name, err)
		}
		t.Skipf("%s is not installed: test skipped (scripts/test-servers.sh installs it)", name)
	}
	return path
}
