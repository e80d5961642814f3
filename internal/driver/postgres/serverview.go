package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// client is the driver's client: sessions as driver.ConnClient gives them,
// and the server's own view of a run (driver.ServerViewer).
type client struct {
	*driver.ConnClient
}

// ServerView implements driver.ServerViewer on a connection of its own.
func (c *client) ServerView(ctx context.Context) (driver.ServerSampler, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return nil, err
	}
	conn := s.(*Conn)
	smp := &sampler{conn: conn}
	if err := smp.open(ctx); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return smp, nil
}

// sampler samples pg_stat_activity like HammerDB's active session history
// (each active session by its wait event, "CPU" when it waits for none) and
// the cumulative statistics views, in two statements per sample.
type sampler struct {
	conn *Conn
	// counters is the one statement reading every cumulative view this
	// server version has, one row; names are its columns' view.column.
	counters string
	names    []string
	// prevHit and prevRead are blks_hit and blks_read at the last sample:
	// the buffer hit ratio is the interval's, not the server's lifetime's.
	prevHit, prevRead float64
	havePrev          bool
	unavailable       []string
	// statements counts what the sampler sent the server (its cost, which
	// a test bounds per sample).
	statements int
}

// viewColumns are the counter columns of each cumulative view, by the
// server version (server_version_num) that introduced or removed them.
type viewColumns struct {
	view, from  string // from: the FROM clause giving the view's one row
	columns     []string
	since, till int // versions [since, till); 0 = unbounded
}

var statViews = []viewColumns{
	{view: "pg_stat_database", from: "pg_stat_database WHERE datname = current_database()",
		columns: []string{"xact_commit", "xact_rollback", "blks_read", "blks_hit", "tup_returned", "tup_fetched",
			"tup_inserted", "tup_updated", "tup_deleted", "temp_bytes", "deadlocks"}},
	{view: "pg_stat_wal", from: "pg_stat_wal", since: 140000, till: 180000,
		columns: []string{"wal_records", "wal_fpi", "wal_bytes", "wal_buffers_full", "wal_write", "wal_sync", "wal_write_time", "wal_sync_time"}},
	{view: "pg_stat_wal", from: "pg_stat_wal", since: 180000,
		columns: []string{"wal_records", "wal_fpi", "wal_bytes", "wal_buffers_full"}},
	{view: "pg_stat_bgwriter", from: "pg_stat_bgwriter", till: 170000,
		columns: []string{"checkpoints_timed", "checkpoints_req", "checkpoint_write_time", "checkpoint_sync_time",
			"buffers_checkpoint", "buffers_clean", "maxwritten_clean", "buffers_backend", "buffers_backend_fsync", "buffers_alloc"}},
	{view: "pg_stat_bgwriter", from: "pg_stat_bgwriter", since: 170000,
		columns: []string{"buffers_clean", "maxwritten_clean", "buffers_alloc"}},
	{view: "pg_stat_checkpointer", from: "pg_stat_checkpointer", since: 170000,
		columns: []string{"num_timed", "num_requested", "write_time", "sync_time", "buffers_written"}},
}

// units of the counters that are not counts.
var statUnits = result.EngineMetricUnit{
	"pg_stat_database.temp_bytes":            "bytes",
	"pg_stat_wal.wal_bytes":                  "bytes",
	"pg_stat_wal.wal_write_time":             "ms",
	"pg_stat_wal.wal_sync_time":              "ms",
	"pg_stat_bgwriter.checkpoint_write_time": "ms",
	"pg_stat_bgwriter.checkpoint_sync_time":  "ms",
	"pg_stat_checkpointer.write_time":        "ms",
	"pg_stat_checkpointer.sync_time":         "ms",
	hitRatio:                                 "%",
}

const hitRatio = "buffer hit ratio"

// activeWaits counts the active sessions other than the sampler's own by
// wait event; sessions of other roles show no state without
// pg_read_all_stats, and so are not counted.
const activeWaits = `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*)::int8
	FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`

// open learns the server's version and the sampler's privileges, and builds
// the counters' statement.
func (s *sampler) open(ctx context.Context) error {
	var version int
	var allStats bool
	var user string
	s.statements++
	err := s.conn.c.QueryRow(ctx, `SELECT current_setting('server_version_num')::int,
		pg_has_role(current_user, 'pg_read_all_stats', 'USAGE'), current_user`,
		pgx.QueryExecModeSimpleProtocol).Scan(&version, &allStats, &user)
	if err != nil {
		return fmt.Errorf("server view: reading the server's version: %s", oneLine(err.Error()))
	}
	if !allStats {
		s.unavailable = append(s.unavailable, fmt.Sprintf(
			"wait events of other roles' sessions: GRANT pg_read_all_stats (or pg_monitor) TO %s", pgx.Identifier{user}.Sanitize()))
	}
	var cols, from []string
	for i, v := range statViews {
		if v.since > 0 && version < v.since || v.till > 0 && version >= v.till {
			continue
		}
		alias := fmt.Sprintf("v%d", i)
		from = append(from, fmt.Sprintf("(SELECT * FROM %s) %s", v.from, alias))
		for _, c := range v.columns {
			cols = append(cols, fmt.Sprintf("%s.%s::float8", alias, c))
			s.names = append(s.names, v.view+"."+c)
		}
	}
	s.counters = "SELECT " + strings.Join(cols, ", ") + " FROM " + strings.Join(from, ", ")
	return nil
}

// Sample implements driver.ServerSampler.
func (s *sampler) Sample(ctx context.Context) (result.EngineSample, error) {
	smp := result.EngineSample{At: time.Now(), Counters: make(map[string]float64, len(s.names)),
		Gauges: map[string]float64{}, Waits: map[string]int{}}
	s.statements++
	rows, err := s.conn.c.Query(ctx, activeWaits, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return smp, fmt.Errorf("reading pg_stat_activity: %s", oneLine(err.Error()))
	}
	active := 0
	for rows.Next() {
		var wait string
		var n int64
		if err := rows.Scan(&wait, &n); err != nil {
			rows.Close()
			return smp, fmt.Errorf("reading pg_stat_activity: %w", err)
		}
		smp.Waits[wait] = int(n)
		active += int(n)
	}
	if rows.Close(); rows.Err() != nil {
		return smp, fmt.Errorf("reading pg_stat_activity: %s", oneLine(rows.Err().Error()))
	}
	smp.Gauges["pg_stat_activity.active"] = float64(active)

	vals := make([]*float64, len(s.names)) // nil: NULL, a counter the server does not keep
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	s.statements++
	if err := s.conn.c.QueryRow(ctx, s.counters, pgx.QueryExecModeSimpleProtocol).Scan(dest...); err != nil {
		return smp, fmt.Errorf("reading the statistics views: %s", oneLine(err.Error()))
	}
	for i, name := range s.names {
		if vals[i] != nil {
			smp.Counters[name] = *vals[i]
		}
	}
	hit, read := smp.Counters["pg_stat_database.blks_hit"], smp.Counters["pg_stat_database.blks_read"]
	if s.havePrev {
		if dh, dr := hit-s.prevHit, read-s.prevRead; dh >= 0 && dr >= 0 && dh+dr > 0 {
			smp.Gauges[hitRatio] = 100 * dh / (dh + dr)
		}
	}
	s.prevHit, s.prevRead, s.havePrev = hit, read, true
	return smp, nil
}

// Unavailable implements driver.ServerSampler.
func (s *sampler) Unavailable() []string { return s.unavailable }

// Units implements driver.ServerSampler.
func (s *sampler) Units() result.EngineMetricUnit { return statUnits }

// Close implements driver.ServerSampler.
func (s *sampler) Close(ctx context.Context) error { return s.conn.Close(ctx) }
