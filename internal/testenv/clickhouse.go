package testenv

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

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

// FreshClickHouse creates a database of its own on the test ClickHouse,
// dropped when the test ends, and returns the URL that names it.
func FreshClickHouse(t testing.TB) string {
	t.Helper()
	base := ClickHouseURL(t)
	admin := Connect(t, base, driver.Options{}).(driver.SQL)
	db := fmt.Sprintf("fbtest_%d", time.Now().UnixNano())
	if err := admin.Exec(context.Background(), "CREATE DATABASE "+db); err != nil {
		t.Fatalf("creating a test database on ClickHouse: %v", err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}
