package store

// The PostgreSQL dialect of the results store. The tables, migrations and
// statements are the SQLite store's: the statements are written once, with ?
// placeholders and SQLite's type names, and translated here (rebind, ddl).
// Everything else that differs between the two sits behind Store.pg.

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

// passwordEnv names the variable a PostgreSQL results store takes its
// password from when its URL has none, before PGPASSWORD.
const passwordEnv = "FAIRBENCH_RESULTS_PASSWORD"

// defaultSchema is the PostgreSQL schema the store's tables live in unless
// the URL names another (?schema=NAME).
const defaultSchema = "fairbench"

// pgStore is what a PostgreSQL store needs beyond database/sql.
type pgStore struct {
	schema    string
	mustExist bool // refuse a schema without a store instead of creating one
}

// connectTimeout bounds a connection attempt when the URL sets none
// (connect_timeout=SECONDS): an unreachable store fails instead of hanging.
const connectTimeout = 15 * time.Second

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

func isPostgresURL(s string) bool {
	scheme, _, _ := strings.Cut(s, "://")
	scheme = strings.ToLower(scheme)
	return scheme == "postgres" || scheme == "postgresql"
}

// openPostgres opens the store in a schema of the PostgreSQL database at
// raw, creating the schema and its tables if needed. The password (in the
// URL, PGPASSWORD or ~/.pgpass, as pgx reads them) is used to connect only:
// Path and every error show the URL redacted.
func openPostgres(raw string, mustExist bool) (*Store, error) {
	shown := driver.Redacted(raw)
	secrets := redact.List(driver.Secrets(raw))
	fail := func(err error) error {
		msg := secrets.Scrub(err.Error())
		if strings.Contains(msg, shown) {
			return fmt.Errorf("%s", msg)
		}
		return fmt.Errorf("results store %s: %s", shown, msg)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("results store %s: not a valid URL", shown)
	}
	q := u.Query()
	schema := defaultSchema
	if v, ok := q["schema"]; ok {
		schema = v[len(v)-1]
		q.Del("schema")
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("results store %s: schema %q: give a lower-case name of letters, digits and _ (at most 63)", shown, schema)
	}
	// libpq-style parsers (pgx too) do not read "+" as a space.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fail(err)
	}
	// The store's own password variable comes before PGPASSWORD, which the
	// study's PostgreSQL targets read too: one environment (a pod's
	// Secret) can then hold both passwords.
	inURL := false
	if u.User != nil {
		_, inURL = u.User.Password()
	}
	if pw := os.Getenv(passwordEnv); pw != "" && !inURL {
		cfg.Password = pw
		secrets = append(secrets, pw)
	}
	// Only our schema is searched (pg_catalog always is): an unqualified
	// "meta" can never resolve to someone else's table in public.
	cfg.RuntimeParams["search_path"] = `"` + schema + `"`
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "fairbench"
	}
	db := stdlib.OpenDB(*cfg)
	if err := pingStore(db, cfg); err != nil {
		db.Close()
		return nil, fail(err)
	}
	s := &Store{db: db, path: shown, kind: "results store", pg: &pgStore{schema: schema, mustExist: mustExist}, warn: os.Stderr}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fail(err)
	}
	return s, nil
}

// pingStore makes the store's first connection, bounded by its connect
// timeout: a server that accepts and never answers fails saying it timed
// out, after how long, and which URL setting changes it, rather than with
// pgx's "context deadline exceeded" of each host attempt.
func pingStore(db *sql.DB, cfg *pgx.ConnConfig) error {
	att, cancel := driver.StartConnecting(context.Background(), cfg.ConnectTimeout, "connect_timeout (seconds)")
	defer cancel()
	err := db.PingContext(att.Context())
	if e := att.Explain(err, "PostgreSQL server "+net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))); e != nil {
		return e
	}
	return err
}

// pgInit identifies the schema before writing anything, then migrates.
func (s *Store) pgInit(ctx context.Context) error {
	v, err := s.version(ctx, s.db)
	if err != nil {
		return err
	}
	if v == 0 && s.pg.mustExist {
		return fmt.Errorf("no results store at %s: schema %s holds no fairbench tables (run a study with --results URL, or fairbench store copy FILE URL)", s.path, s.pg.schema)
	}
	return s.migrate(ctx)
}

// pgLock takes the store's migration lock for the transaction and creates
// the schema if it is missing: two processes opening a fresh store at once
// migrate it once, the second finds it at the current version.
func (s *Store) pgLock(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "fairbench results store "+s.pg.schema); err != nil {
		return fmt.Errorf("locking the schema for migration: %w", err)
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.pg.schema).Scan(&exists); err != nil {
		return fmt.Errorf("schema %s: %w", s.pg.schema, err)
	}
	if !exists {
		if _, err := tx.ExecContext(ctx, `CREATE SCHEMA "`+s.pg.schema+`"`); err != nil {
			return fmt.Errorf("creating schema %s: %w", s.pg.schema, err)
		}
	}
	return nil
}

// pgVersion is version for PostgreSQL: 0 for a missing or empty schema, an
// error for a schema with tables fairbench did not create.
func (s *Store) pgVersion(ctx context.Context, q querier) (int, error) {
	var tables, meta int
	err := q.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE c.relname = 'meta' AND c.relkind IN ('r', 'p'))
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`, s.pg.schema).Scan(&tables, &meta)
	if err != nil {
		return 0, err
	}
	if tables == 0 {
		return 0, nil
	}
	notOurs := fmt.Errorf("%s is not a fairbench results store: schema %s holds tables fairbench did not create (name another with ?schema=NAME)", s.path, s.pg.schema)
	if meta == 0 {
		return 0, notOurs
	}
	return s.metaVersion(ctx, q, notOurs)
}

// rowOrder is the column that orders rows of a table without a key in
// insertion order.
func (s *Store) rowOrder() string {
	if s.pg != nil {
		return "ctid"
	}
	return "rowid"
}

// ddl translates a migration written for SQLite to the store's dialect.
func (s *Store) ddl(m string) string {
	if s.pg == nil {
		return m
	}
	return pgDDL(m)
}

var (
	autoKey = regexp.MustCompile(`\bINTEGER PRIMARY KEY( AUTOINCREMENT)?\b`)
	pgTypes = strings.NewReplacer("INTEGER", "BIGINT", "BLOB", "BYTEA", "REAL", "DOUBLE PRECISION")
	typeRe  = regexp.MustCompile(`\b(INTEGER|BLOB|REAL)\b`)
)

// pgDDL translates SQLite's types to PostgreSQL's: SQLite's INTEGER is 64
// bits, its rowid key becomes an identity column.
func pgDDL(m string) string {
	m = autoKey.ReplaceAllString(m, "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
	return typeRe.ReplaceAllStringFunc(m, pgTypes.Replace)
}

// rebind turns ? placeholders into $1, $2, … (outside quoted text).
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pgText makes text storable in a PostgreSQL text column, which refuses NUL
// and invalid UTF-8 (a tool's output may hold both).
func pgText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
