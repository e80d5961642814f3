// Package testenv gives integration tests the real servers that
// scripts/test-servers.sh started: their URLs from the environment, and a fresh
// database per test so tests never see each other's data. Without a server URL the
// tests skip, unless FAIRBENCH_REQUIRE_SERVERS=1 (set by scripts/test.sh), in which
// case they fail: CI must never pass by skipping.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	mysqldrv "github.com/fairbench/fairbench/internal/driver/mysql"
)

// PostgresURL returns the admin URL of the test PostgreSQL.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_PG")
}

// PgBouncerURL returns the URL of the test PgBouncer (scripts/pgbouncer.sh):
// the test PostgreSQL's bench database through a PgBouncer whose console
// lets the same user read SHOW VERSION.
func PgBouncerURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_PGBOUNCER")
}

func need(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s is not set; run the tests through ./scripts/test.sh", name)
		}
		t.Skipf("%s not set: integration test skipped (./scripts/test.sh starts the servers)", name)
	}
	return v
}

// FreshPostgres creates an empty database for the test, drops it afterwards, and
// returns its URL (same credentials as the test server's URL).
func FreshPostgres(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL: %v", err)
	}
	defer admin.Close(ctx)
	name := "fbtest_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck // best effort
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// WithQuery returns the URL with extra query parameters set.
func WithQuery(t testing.TB, raw string, kv ...string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	// libpq-style parsers (pgx too) do not read "+" as a space.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String()
}

// Password returns the password in a URL (tests check it never leaks).
func Password(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		t.Fatalf("test URL %q carries no password", raw)
	}
	p, _ := u.User.Password()
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	return hex.EncodeToString(b)
}

// MySQLURL returns the URL of the test MariaDB (MySQL protocol).
func MySQLURL(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_MYSQL")
}

// MySQLCA returns the CA certificate the test MariaDB's TLS certificate is signed with.
func MySQLCA(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_MYSQL_CA")
}

// FreshMySQL creates an empty database fbtest_xxx on the test MariaDB, drops it
// afterwards, and returns its URL (same credentials as the test server's URL).
func FreshMySQL(t testing.TB) string {
	t.Helper()
	base := MySQLURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := "fbtest_" + randomHex(6)
	exec := func(ctx context.Context, q string) error {
		cl, err := (mysqldrv.Driver{}).Open(ctx, driver.Target{Name: "testenv", URL: base}, driver.Options{})
		if err != nil {
			return err
		}
		defer cl.Close(ctx)
		c, err := cl.Session(ctx)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		return c.(driver.SQL).Exec(ctx, q)
	}
	if err := exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating test database on the test MariaDB: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		exec(ctx, "DROP DATABASE IF EXISTS "+name) //nolint:errcheck // best effort
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Open opens a client for url through fairbench's driver for its scheme
// (which the test must have registered by importing it), closed when the test
// ends.
func Open(t testing.TB, url string, o driver.Options) driver.Client {
	t.Helper()
	d, err := driver.ForURL(url)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := d.Open(context.Background(), driver.Target{Name: "test", URL: url}, o)
	if err != nil {
		t.Fatalf("opening %s: %v", driver.Redacted(url), err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl
}

// Connect takes a session of a client for url (see Open), closed when the
// test ends.
func Connect(t testing.TB, url string, o driver.Options) driver.Conn {
	t.Helper()
	c, err := Open(t, url, o).Session(context.Background())
	if err != nil {
		t.Fatalf("connecting to %s: %v", driver.Redacted(url), err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// MongoDBURL returns the URL of the test document store (FerretDB: no real
// mongod can be installed on the test machines). The test shares the server
// with other tests until it ends, but not with one that reads its command
// counters (MongoDBURLCounted).
func MongoDBURL(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_MONGODB")
	shared(t, ferretLock, "the FerretDB test server")
	return u
}

// MongoDBURLCounted is MongoDBURL for a test that compares FerretDB's
// command counters (its metrics count every client's commands) with its own
// counts: it has the server to itself until it ends, as no other test
// process of the suite is running commands on it then.
func MongoDBURLCounted(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_MONGODB")
	exclusive(t, ferretLock, "the FerretDB test server's counters")
	return u
}

const ferretLock = "fairbench-test-ferretdb.lock"
