package testenv

import (
	"os"
	"testing"
)

// ChdbPython returns the Python that has chdb-core 26.9 installed
// (FAIRBENCH_TEST_CHDB_PYTHON; scripts/test-servers.sh makes the venv):
// ClickHouse 26.9's engine in-process, which runs the modern dialect's
// texts where the test server is 18.16.
func ChdbPython(t testing.TB) string {
	t.Helper()
	py := need(t, "FAIRBENCH_TEST_CHDB_PYTHON")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("FAIRBENCH_TEST_CHDB_PYTHON: %v (scripts/test-servers.sh makes .bin/chdb-venv)", err)
	}
	return py
}
