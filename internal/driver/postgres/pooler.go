package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/result"
)

// pooler finds a connection pooler between this connection and the server:
// a pooler changes what a benchmark measures (its own hop, and the sessions
// it shares), so a report must say when one target had one.
//
//   - Pgpool-II answers SHOW pool_version on any session; PostgreSQL refuses
//     it as an unknown setting.
//   - PgBouncer passes every statement on, but gives its clients a cancel key
//     of its own making, so the backend pid the connection was told differs
//     from the server's pg_backend_pid(). When they differ, PgBouncer's
//     console (the virtual database "pgbouncer") is asked SHOW VERSION with
//     the same credentials; it answers users listed in its admin_users or
//     stats_users. Refused, the pooler is recorded unnamed with the evidence.
//
// nil when nothing stood between: the plain PostgreSQL case.
func (c *Conn) pooler(ctx context.Context) (*result.Pooler, error) {
	var pgpool string
	if err := c.c.QueryRow(ctx, "SHOW pool_version", pgx.QueryExecModeSimpleProtocol).Scan(&pgpool); err == nil {
		return &result.Pooler{Name: "Pgpool-II", Version: pgpool, Evidence: "SHOW pool_version"}, nil
	}
	var backend uint32
	if err := c.c.QueryRow(ctx, "SELECT pg_backend_pid()", pgx.QueryExecModeSimpleProtocol).Scan(&backend); err != nil {
		return nil, fmt.Errorf("reading pg_backend_pid(): %w", err)
	}
	told := c.c.PgConn().PID()
	if backend == told {
		return nil, nil
	}
	evidence := fmt.Sprintf("the server's backend pid %d is not the %d the connection was given", backend, told)
	version, err := c.pgBouncerVersion(ctx)
	if err != nil {
		return &result.Pooler{Evidence: evidence + "; PgBouncer's console: " + err.Error()}, nil
	}
	name, number := parsePoolerVersion(version)
	return &result.Pooler{Name: name, Version: number, Evidence: evidence + "; SHOW VERSION on the console"}, nil
}

// pgBouncerVersion asks PgBouncer's console SHOW VERSION, on a connection of
// its own to the database "pgbouncer" (the console speaks the simple
// protocol only).
func (c *Conn) pgBouncerVersion(ctx context.Context) (string, error) {
	cfg := c.cfg.Copy()
	cfg.Database = "pgbouncer"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity = 0, 0
	console, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("%s", scrub(connectError(err), c.url))
	}
	defer console.Close(ctx)
	var version string
	if err := console.QueryRow(ctx, "SHOW VERSION").Scan(&version); err != nil {
		return "", fmt.Errorf("SHOW VERSION: %s", oneLine(err.Error()))
	}
	return version, nil
}

// parsePoolerVersion splits "PgBouncer 1.18.0" into its name and version;
// a text with no version number is all name.
func parsePoolerVersion(s string) (name, version string) {
	s = strings.TrimSpace(s)
	i := strings.LastIndexByte(s, ' ')
	if i < 0 || !strings.ContainsAny(s[i+1:i+2], "0123456789") {
		return s, ""
	}
	return s[:i], s[i+1:]
}
