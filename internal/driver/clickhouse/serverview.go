package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// The server view of ClickHouse, on a connection of the sampler's own:
// system.events (cumulative counters of the whole server), system.metrics
// (gauges), and system.query_log for this client's own queries, which carry
// a query_id that starts with the client's prefix (queryIDs). Each is one
// query per sample; the query log is flushed first (SYSTEM FLUSH LOGS), as
// the server writes it every 7.5 s by default, so that a sample counts every
// query finished before it. That flush writes a part of each system log table
// per sample (and their merges count in system.events' Merge* counters).
// ClickHouse has no wait states: Waits stays empty.

var _ driver.ServerViewer = (*client)(nil)

// serverEvents are the system.events counters a sample keeps: queries,
// what they read and from where, what merges did, and the CPU and I/O the
// server's threads spent. A server only lists an event once it happened.
var serverEvents = []string{
	"Query", "SelectQuery", "InsertQuery", "FailedQuery", "FailedSelectQuery", "FailedInsertQuery",
	"SelectedRows", "SelectedBytes", "SelectedParts", "SelectedMarks", "InsertedRows", "InsertedBytes",
	"ReadCompressedBytes", "CompressedReadBufferBlocks", "CompressedReadBufferBytes",
	"MarkCacheHits", "MarkCacheMisses", "UncompressedCacheHits", "UncompressedCacheMisses",
	"Merge", "MergedRows", "MergedUncompressedBytes", "MergesTimeMilliseconds",
	"DiskReadElapsedMicroseconds", "DiskWriteElapsedMicroseconds", "OSReadBytes", "OSWriteBytes",
	"OSReadChars", "OSWriteChars", "ReadBufferFromFileDescriptorReadBytes",
	"RealTimeMicroseconds", "UserTimeMicroseconds", "SystemTimeMicroseconds", "OSCPUWaitMicroseconds",
	"NetworkReceiveElapsedMicroseconds", "NetworkSendElapsedMicroseconds", "ContextLock",
}

// serverMetrics are the system.metrics gauges a sample keeps.
var serverMetrics = []string{
	"Query", "Merge", "MemoryTracking", "TCPConnection", "HTTPConnection", "QueryThread",
	"BackgroundPoolTask", "BackgroundMergesAndMutationsPoolTask", "DelayedInserts", "ContextLockWait",
	"RWLockWaitingReaders", "RWLockWaitingWriters",
}

// eventUnits are the units of the events above that are not counts.
var eventUnits = map[string]string{
	"SelectedBytes": "bytes", "InsertedBytes": "bytes", "ReadCompressedBytes": "bytes",
	"CompressedReadBufferBytes": "bytes", "MergedUncompressedBytes": "bytes", "MergesTimeMilliseconds": "ms",
	"DiskReadElapsedMicroseconds": "µs", "DiskWriteElapsedMicroseconds": "µs", "OSReadBytes": "bytes",
	"OSWriteBytes": "bytes", "OSReadChars": "bytes", "OSWriteChars": "bytes",
	"ReadBufferFromFileDescriptorReadBytes": "bytes", "RealTimeMicroseconds": "µs",
	"UserTimeMicroseconds": "µs", "SystemTimeMicroseconds": "µs", "OSCPUWaitMicroseconds": "µs",
	"NetworkReceiveElapsedMicroseconds": "µs", "NetworkSendElapsedMicroseconds": "µs",
}

// maxViewRows bounds each view's answer: the names asked for, with room.
const maxViewRows = 1000

// Names of the query log's sums.
const (
	queryLogPrefix = "system.query_log."
	logQueries     = queryLogPrefix + "queries"
	logReadRows    = queryLogPrefix + "read_rows"
	logReadBytes   = queryLogPrefix + "read_bytes"
	logDurationMS  = queryLogPrefix + "query_duration_ms"
	logMemoryMax   = queryLogPrefix + "memory_usage.max"
)

// queryIDs gives every statement of a client's sessions a query_id of the
// client's own ("fairbench-<12 hex>-<n>"), by which the server view finds
// them in system.query_log.
type queryIDs struct {
	prefix string
	n      atomic.Uint64
}

func newQueryIDs() *queryIDs {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on Linux; a zero prefix would still work
	return &queryIDs{prefix: "fairbench-" + hex.EncodeToString(b[:]) + "-"}
}

// tag returns ctx with the next query_id (an option added to those the
// caller's ctx already carries).
func (q *queryIDs) tag(ctx context.Context) context.Context {
	return ch.Context(ctx, ch.WithQueryID(q.prefix+strconv.FormatUint(q.n.Add(1), 10)))
}

// chSampler samples system.events, system.metrics and system.query_log.
type chSampler struct {
	conn    chdriver.Conn
	cfg     config
	user    string
	ids     *queryIDs
	since   time.Time // the query log is read from here: the sampler's opening, to the second
	unavail []string
	// flush is whether SYSTEM FLUSH LOGS is run before reading the query
	// log; queryLog whether the query log is read at all.
	flush, queryLog bool
}

// ServerView implements driver.ServerViewer: a connection of its own (not
// the sessions' pool), checked with what it may read: the query log needs
// log_queries on for the user and SYSTEM FLUSH LOGS allowed, and says so in
// Unavailable otherwise.
func (c *client) ServerView(ctx context.Context) (driver.ServerSampler, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	opts := *c.cfg.opts
	opts.MaxOpenConns, opts.MaxIdleConns = 1, 1
	// The query log tells the sampler's queries from the load's.
	opts.ClientInfo = ch.ClientInfo{Products: []struct{ Name, Version string }{{Name: "fairbench-serverview", Version: ""}}}
	conn, err := ch.Open(&opts)
	if err != nil {
		return nil, fmt.Errorf("ClickHouse URL %s: %w", c.cfg.redacted, c.cfg.secrets.ScrubErr(err))
	}
	s := &chSampler{conn: conn, cfg: c.cfg, user: opts.Auth.Username, ids: c.ids, flush: true, queryLog: true,
		since: time.Now().Truncate(time.Second)}
	// clickhouse-go's handshake waits out dial_timeout whatever the
	// context: the attempt ends with ctx (or dial_timeout) all the same.
	att, cancel := driver.StartConnecting(ctx, opts.DialTimeout, "dial_timeout")
	defer cancel()
	if err := att.Await(s.check, func() { _ = conn.Close() }); err != nil {
		if e := att.Explain(err, "ClickHouse server of "+c.cfg.redacted); e != nil {
			return nil, e
		}
		return nil, err
	}
	return s, nil
}

// check reads log_queries (an error here is the server's: unreachable,
// refused) and tries the flush once.
func (s *chSampler) check(ctx context.Context) error {
	var on string
	err := s.conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'log_queries'").Scan(&on)
	if err != nil {
		return fmt.Errorf("ClickHouse server view of %s: %w", s.cfg.redacted, s.cfg.secrets.ScrubErr(err))
	}
	if on == "0" {
		s.queryLog = false
		s.unavail = append(s.unavail, fmt.Sprintf("system.query_log (the run's own read_rows, read_bytes, memory_usage): log_queries is 0 for user %q: set log_queries=1 in its settings profile", s.user))
		return nil
	}
	s.flushLogs(ctx)
	return nil
}

// flushLogs runs SYSTEM FLUSH LOGS; a refusal stops the flushes and says
// what it costs.
func (s *chSampler) flushLogs(ctx context.Context) {
	if !s.flush {
		return
	}
	err := s.conn.Exec(ctx, "SYSTEM FLUSH LOGS")
	var ex *ch.Exception
	if errors.As(err, &ex) {
		s.flush = false
		s.unavail = append(s.unavail, fmt.Sprintf("SYSTEM FLUSH LOGS refused to user %q (%s): system.query_log lags the run by up to flush_interval_milliseconds (7.5 s by default): GRANT SYSTEM FLUSH LOGS ON *.* TO %s",
			s.user, firstLine(ex.Message), s.user))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Sample implements driver.ServerSampler.
func (s *chSampler) Sample(ctx context.Context) (result.EngineSample, error) {
	out := result.EngineSample{At: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	if err := s.named(ctx, "SELECT event, toFloat64(value) FROM system.events WHERE event IN ("+quoted(serverEvents)+")",
		"system.events.", out.Counters); err != nil {
		return result.EngineSample{}, err
	}
	if err := s.named(ctx, "SELECT metric, toFloat64(value) FROM system.metrics WHERE metric IN ("+quoted(serverMetrics)+")",
		"system.metrics.", out.Gauges); err != nil {
		return result.EngineSample{}, err
	}
	if s.queryLog {
		if err := s.readQueryLog(ctx, &out); err != nil {
			return result.EngineSample{}, err
		}
	}
	return out, nil
}

// named reads (name, value) rows into m under prefix.
func (s *chSampler) named(ctx context.Context, query, prefix string, m map[string]float64) error {
	rows, err := s.conn.Query(ctx, query+" LIMIT "+strconv.Itoa(maxViewRows))
	if err != nil {
		return s.viewError(prefix, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v float64
		if err := rows.Scan(&name, &v); err != nil {
			return s.viewError(prefix, err)
		}
		m[prefix+name] = v
	}
	if err := rows.Err(); err != nil {
		return s.viewError(prefix, err)
	}
	return nil
}

func (s *chSampler) viewError(view string, err error) error {
	return fmt.Errorf("ClickHouse %s of %s: %w", strings.TrimSuffix(view, "."), s.cfg.redacted, s.cfg.secrets.ScrubErr(err))
}

// readQueryLog sums the finished queries of this client since the sampler
// opened. A query log that does not exist yet (nothing was logged since the
// server started) sums to zero.
func (s *chSampler) readQueryLog(ctx context.Context, out *result.EngineSample) error {
	s.flushLogs(ctx)
	// type 2 is QueryFinish (an enum in every version; its name too only in later ones).
	q := fmt.Sprintf(`SELECT toFloat64(count()), toFloat64(sum(read_rows)), toFloat64(sum(read_bytes)),
		toFloat64(sum(query_duration_ms)), toFloat64(max(memory_usage))
		FROM system.query_log
		WHERE event_date >= toDate(%[1]d) AND event_time >= toDateTime(%[1]d) AND type = 2 AND startsWith(query_id, '%[2]s')`,
		s.since.Unix(), s.ids.prefix)
	var n, rowsRead, bytesRead, ms, mem float64
	err := s.conn.QueryRow(ctx, q).Scan(&n, &rowsRead, &bytesRead, &ms, &mem)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeUnknownTable {
		err = nil
	}
	if err != nil {
		return s.viewError("system.query_log", err)
	}
	out.Counters[logQueries] = n
	out.Counters[logReadRows] = rowsRead
	out.Counters[logReadBytes] = bytesRead
	out.Counters[logDurationMS] = ms
	out.Gauges[logMemoryMax] = mem
	return nil
}

// quoted lists names as SQL string literals (they are this file's own).
func quoted(names []string) string { return "'" + strings.Join(names, "', '") + "'" }

// Unavailable implements driver.ServerSampler.
func (s *chSampler) Unavailable() []string { return s.unavail }

// Units implements driver.ServerSampler.
func (s *chSampler) Units() result.EngineMetricUnit {
	u := result.EngineMetricUnit{
		"system.metrics.MemoryTracking": "bytes", logReadBytes: "bytes", logDurationMS: "ms", logMemoryMax: "bytes",
	}
	for k, v := range eventUnits {
		u["system.events."+k] = v
	}
	return u
}

// Close implements driver.ServerSampler.
func (s *chSampler) Close(context.Context) error { return s.cfg.secrets.ScrubErr(s.conn.Close()) }
