package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	smp := &sampler{conn: s.(*conn), units: result.EngineMetricUnit{}}
	for k, v := range statusUnits {
		smp.units[k] = v
	}
	if err := smp.open(ctx); err != nil {
		_ = smp.conn.Close(ctx)
		return nil, err
	}
	return smp, nil
}

// sampler samples, per sample: the sessions at work by their state in the
// process list (the active session history MySQL keeps without
// performance_schema), the InnoDB and server counters of SHOW GLOBAL STATUS,
// and with performance_schema on, the wait time by instrument class.
type sampler struct {
	conn        *conn
	perfSchema  bool
	unavailable []string
	// prevReads and prevRequests are the buffer pool's disk reads and read
	// requests at the last sample: the hit ratio is the interval's.
	prevReads, prevRequests float64
	havePrev                bool
	units                   result.EngineMetricUnit
	// statements counts what the sampler sent the server (its cost, which a
	// test bounds per sample).
	statements int
}

// statusCounters are the cumulative counters read from SHOW GLOBAL STATUS;
// statusGauges its point-in-time values. MariaDB and MySQL share them;
// a name a server does not have is simply absent.
var (
	statusCounters = []string{
		"Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
		"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_write_requests",
		"Innodb_buffer_pool_wait_free", "Innodb_pages_written",
		"Innodb_data_read", "Innodb_data_written", "Innodb_data_fsyncs",
		"Innodb_log_writes", "Innodb_log_waits", "Innodb_os_log_written", "Innodb_os_log_fsyncs",
		"Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_deadlocks",
		"Com_commit", "Com_rollback", "Questions", "Created_tmp_disk_tables",
	}
	statusGauges = []string{"Threads_running", "Threads_connected", "Innodb_buffer_pool_pages_dirty"}
)

var statusUnits = result.EngineMetricUnit{
	"status.Innodb_data_read":      "bytes",
	"status.Innodb_data_written":   "bytes",
	"status.Innodb_os_log_written": "bytes",
	"status.Innodb_row_lock_time":  "ms",
	hitRatio:                       "%",
}

const hitRatio = "buffer pool hit ratio"

// busySessions counts the other sessions running a statement by their state
// ("" while executing without a named state: on a CPU). Without the PROCESS
// privilege the list holds the sampler's own user's sessions only.
const busySessions = `SELECT COALESCE(NULLIF(STATE, ''), 'CPU'), COUNT(*) FROM information_schema.PROCESSLIST
	WHERE COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID') AND ID <> CONNECTION_ID() GROUP BY 1`

// waitClasses is the wait time (picoseconds) by instrument class
// ("wait/io/file/innodb", "wait/synch/mutex/innodb"): classes rather than
// instruments, so that the names stay few.
const waitClasses = `SELECT SUBSTRING_INDEX(EVENT_NAME, '/', 4), SUM(SUM_TIMER_WAIT), SUM(COUNT_STAR)
	FROM performance_schema.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0 GROUP BY 1`

// open learns whether performance_schema is on and what the user may see.
func (s *sampler) open(ctx context.Context) error {
	var ps int
	var grants string
	s.statements++
	err := s.conn.c.QueryRowContext(ctx, `SELECT @@performance_schema,
		(SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'PROCESS')`).Scan(&ps, &grants)
	if err != nil {
		return fmt.Errorf("server view: reading @@performance_schema: %s", oneLineError(err))
	}
	s.perfSchema = ps == 1
	if !s.perfSchema {
		s.unavailable = append(s.unavailable, "wait time by instrument (performance_schema): set performance_schema=ON in the server's configuration and restart it")
	}
	if grants == "0" {
		s.unavailable = append(s.unavailable, fmt.Sprintf("states of other users' sessions: GRANT PROCESS ON *.* TO '%s'", strings.ReplaceAll(s.conn.cfg.User, "'", "''")))
	}
	return nil
}

// Sample implements driver.ServerSampler: two statements, three with
// performance_schema.
func (s *sampler) Sample(ctx context.Context) (result.EngineSample, error) {
	smp := result.EngineSample{At: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}, Waits: map[string]int{}}
	err := s.rows(ctx, busySessions, func(r *sql.Rows) error {
		var state string
		var n int
		if err := r.Scan(&state, &n); err != nil {
			return err
		}
		smp.Waits[state] += n
		return nil
	})
	if err != nil {
		return smp, fmt.Errorf("reading the process list: %s", oneLineError(err))
	}
	counter := map[string]bool{}
	for _, n := range statusCounters {
		counter[n] = true
	}
	names := append(append([]string(nil), statusCounters...), statusGauges...)
	err = s.rows(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "', '")+"')", func(r *sql.Rows) error {
		var name, value string
		if err := r.Scan(&name, &value); err != nil {
			return err
		}
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil // not a number: nothing to sum
		}
		if counter[name] {
			smp.Counters["status."+name] = x
		} else {
			smp.Gauges["status."+name] = x
		}
		return nil
	})
	if err != nil {
		return smp, fmt.Errorf("reading SHOW GLOBAL STATUS: %s", oneLineError(err))
	}
	reads, requests := smp.Counters["status.Innodb_buffer_pool_reads"], smp.Counters["status.Innodb_buffer_pool_read_requests"]
	if s.havePrev {
		if dr, dq := reads-s.prevReads, requests-s.prevRequests; dr >= 0 && dq > 0 && dr <= dq {
			smp.Gauges[hitRatio] = 100 * (dq - dr) / dq
		}
	}
	s.prevReads, s.prevRequests, s.havePrev = reads, requests, true
	if s.perfSchema {
		err = s.rows(ctx, waitClasses, func(r *sql.Rows) error {
			var class string
			var ps, count float64
			if err := r.Scan(&class, &ps, &count); err != nil {
				return err
			}
			smp.Counters["performance_schema."+class+".wait_ms"] = ps / 1e9
			s.units["performance_schema."+class+".wait_ms"] = "ms"
			smp.Counters["performance_schema."+class+".waits"] = count
			return nil
		})
		if err != nil {
			return smp, fmt.Errorf("reading performance_schema.events_waits_summary_global_by_event_name: %s", oneLineError(err))
		}
	}
	return smp, nil
}

// rows runs one statement and hands each row to each.
func (s *sampler) rows(ctx context.Context, q string, each func(*sql.Rows) error) error {
	s.statements++
	r, err := s.conn.c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := each(r); err != nil {
			return err
		}
	}
	return r.Err()
}

// Unavailable implements driver.ServerSampler.
func (s *sampler) Unavailable() []string { return s.unavailable }

// Units implements driver.ServerSampler: with performance_schema, the
// wait time of each class sampled so far is in ms too.
func (s *sampler) Units() result.EngineMetricUnit { return s.units }

// Close implements driver.ServerSampler.
func (s *sampler) Close(ctx context.Context) error { return s.conn.Close(ctx) }

// oneLineError is err's text on one line.
func oneLineError(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
