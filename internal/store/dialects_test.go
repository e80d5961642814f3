package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/testenv"
)

// A dialect gives a test a fresh, not yet created store: a path or a URL
// to pass to Open.
type dialect struct {
	name  string
	fresh func(t *testing.T) string
}

var dialects = []dialect{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "fairbench.db") }},
	{"postgres", freshPGStore},
}

// freshPGStore returns the test PostgreSQL's URL naming a schema of the
// test's own (not yet created), dropped when the test ends.
func freshPGStore(t *testing.T) string {
	t.Helper()
	base := testenv.PostgresURL(t)
	schema := "fbstore_" + randomName()
	t.Cleanup(func() { pgAdmin(t, base, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`) })
	return testenv.WithQuery(t, base, "schema", schema)
}

func randomName() string {
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	return hex.EncodeToString(b)
}

// pgAdmin runs statements on the test PostgreSQL outside any store.
func pgAdmin(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("connecting to the test PostgreSQL: %v", err)
		return
	}
	defer c.Close(ctx)
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// eachDialect runs f on a fresh store of every dialect.
func eachDialect(t *testing.T, f func(t *testing.T, s *Store)) {
	t.Helper()
	eachLocation(t, func(t *testing.T, loc string) { f(t, mustOpen(t, loc)) })
}

// eachLocation runs f with a fresh store location of every dialect.
func eachLocation(t *testing.T, f func(t *testing.T, loc string)) {
	t.Helper()
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) { f(t, d.fresh(t)) })
	}
}

func mustOpen(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
