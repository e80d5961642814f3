package testenv

import "testing"

// ClickHouseURL returns the URL of the test ClickHouse (scripts/install-clickhouse.sh:
// Debian's 18.16.1 on the native port 9001).
func ClickHouseURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_CLICKHOUSE")
}

// ClickHouseAuthURL returns the URL of a user with a password on the test
// ClickHouse (tests check the password never leaks).
func ClickHouseAuthURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_CLICKHOUSE_AUTH")
}
