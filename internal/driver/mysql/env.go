package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

var sqlBadConn = sqldriver.ErrBadConn

// loadBatchBytes bounds one multi-row INSERT: large enough to amortise the
// round trip and parsing, far below the default max_allowed_packet (16 MiB on
// MariaDB 10.11, 64 MiB on MySQL 8).
const loadBatchBytes = 1 << 20

// BulkLoad implements driver.BulkLoader: LOAD DATA LOCAL INFILE, streaming
// the rows as text lines, where the server allows it (local_infile = ON,
// MariaDB's default), else multi-row INSERTs of literal values, the path
// sysbench's prepare and mysqldump use, each batch committed on its own so
// that a large load does not build one huge undo log. Many managed services
// refuse LOAD DATA LOCAL; the INSERTs work everywhere, and bulk=insert in the
// URL asks for them (sysbench's prepare path, for a like-for-like load).
func (c *conn) BulkLoad(ctx context.Context, table string, columns []string, rows driver.RowSource, truncate bool) (int64, error) {
	if truncate {
		if err := c.Exec(ctx, "TRUNCATE TABLE "+quoteIdent(table)); err != nil {
			return 0, err
		}
	}
	if c.cfg.Bulk != "insert" {
		if local, err := c.QueryInt64(ctx, "SELECT @@GLOBAL.local_infile"); err == nil && local == 1 {
			return c.loadData(ctx, table, columns, rows)
		}
	}
	return c.insertRows(ctx, table, columns, rows)
}

var loadDataSeq atomic.Int64

// countedRows counts the rows a RowSource yields.
type countedRows struct {
	driver.RowSource
	n int64
}

func (r *countedRows) Next() bool {
	if r.RowSource.Next() {
		r.n++
		return true
	}
	return false
}

// loadData streams rows through LOAD DATA LOCAL INFILE in one statement (one
// transaction) per call; go-sql-driver reads them from a registered reader.
func (c *conn) loadData(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = quoteIdent(col)
	}
	name := fmt.Sprintf("fairbench-load-%d", loadDataSeq.Add(1))
	counted := &countedRows{RowSource: rows}
	gomysql.RegisterReaderHandler(name, func() io.Reader { return driver.NewTextRowReader(counted) })
	defer gomysql.DeregisterReaderHandler(name)
	err := c.Exec(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+name+"' INTO TABLE "+quoteIdent(table)+
		" CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ("+strings.Join(cols, ",")+")")
	return counted.n, err
}

// insertRows loads rows with multi-row INSERTs.
func (c *conn) insertRows(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = quoteIdent(col)
	}
	head := "INSERT INTO " + quoteIdent(table) + " (" + strings.Join(cols, ",") + ") VALUES "
	buf := make([]byte, 0, loadBatchBytes+64<<10)
	var n int64
	inBatch := 0
	flush := func() error {
		if inBatch == 0 {
			return nil
		}
		// With autocommit=0 in the URL the batch would stay open; commit explicitly.
		if err := c.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
		if err := c.Exec(ctx, string(buf)); err != nil {
			c.Exec(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // best effort
			return err
		}
		buf, inBatch = buf[:0], 0
		return c.Exec(ctx, "COMMIT")
	}
	for rows.Next() {
		if inBatch == 0 {
			buf = append(buf, head...)
		} else {
			buf = append(buf, ',')
		}
		buf = appendRow(buf, rows.Values())
		inBatch++
		n++
		if len(buf) >= loadBatchBytes {
			if err := flush(); err != nil {
				return n - int64(inBatch), err
			}
		}
	}
	return n, flush()
}

func appendRow(b []byte, vals []any) []byte {
	b = append(b, '(')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLiteral(b, v)
	}
	return append(b, ')')
}

// appendLiteral writes a SQL literal; strings are escaped for both the default
// sql_mode and NO_BACKSLASH_ESCAPES (quotes are doubled, backslashes only
// appear escaped when the mode allows it — the generated data holds none).
func appendLiteral(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case string:
		b = append(b, '\'')
		for i := 0; i < len(x); i++ {
			switch ch := x[i]; ch {
			case '\'':
				b = append(b, '\'', '\'')
			case '\\':
				b = append(b, '\\', '\\')
			case 0:
				b = append(b, '\\', '0')
			default:
				b = append(b, ch)
			}
		}
		return append(b, '\'')
	default:
		return appendLiteral(b, fmt.Sprint(x))
	}
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// alwaysReported are variables worth showing even at their defaults, because
// they decide most comparisons.
var alwaysReported = []string{
	"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "max_connections",
	"transaction_isolation", "tx_isolation", "innodb_log_file_size", "innodb_flush_method",
	"innodb_io_capacity", "innodb_doublewrite", "log_bin", "binlog_format", "performance_schema",
	"thread_handling", "query_cache_type", "innodb_buffer_pool_instances", "table_open_cache",
}

// Environment implements driver.Environment: version, the global variables set
// away from their compiled-in defaults, the always-reported ones, and the TLS
// version and cipher of this connection as the server sees them.
func (c *conn) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: "mysql", Driver: "go-sql-driver/mysql"}
	var version, comment string
	if err := c.c.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		return result.Database{}, fmt.Errorf("reading server version: %w", err)
	}
	mariadb := strings.Contains(strings.ToLower(version+comment), "mariadb")
	if mariadb {
		env.Engine = "mariadb"
	}
	env.Version = version
	env.Set("version_comment", comment)
	settings := map[string]string{}
	// Variables away from defaults: MariaDB knows where each value came from;
	// MySQL 8 keeps the same fact in performance_schema.variables_info.
	q := `SELECT VARIABLE_NAME, GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES
		WHERE GLOBAL_VALUE_ORIGIN IN ('CONFIG', 'COMMAND-LINE', 'SQL')`
	if !mariadb {
		q = `SELECT i.VARIABLE_NAME, g.VARIABLE_VALUE FROM performance_schema.variables_info i
			JOIN performance_schema.global_variables g ON g.VARIABLE_NAME = i.VARIABLE_NAME
			WHERE i.VARIABLE_SOURCE <> 'COMPILED'`
	}
	if err := c.collect(ctx, settings, q); err != nil {
		env.SettingsError = err.Error()
	}
	in := "'" + strings.Join(alwaysReported, "','") + "'"
	if err := c.collect(ctx, settings, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+in+")"); err != nil {
		return result.Database{}, fmt.Errorf("reading global variables: %w", err)
	}
	env.Settings = settings
	status := map[string]string{}
	if err := c.collect(ctx, status, "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')"); err != nil {
		return result.Database{}, fmt.Errorf("reading TLS status: %w", err)
	}
	tlsFacts := map[string]any{"enabled": status["ssl_version"] != ""}
	if status["ssl_version"] != "" {
		tlsFacts["version"] = status["ssl_version"]
		tlsFacts["cipher"] = status["ssl_cipher"]
		tlsFacts["source"] = "server (SHOW SESSION STATUS)"
		tlsFacts["verified"] = c.cfg.TLSMode == "verify"
	}
	env.Set("tls", tlsFacts)
	// Which code sends the prepared statements goes with the run: it is part
	// of the client's cost per statement.
	switch {
	case c.mode == "simple":
		env.Set("statements", "text protocol (go-sql-driver, parameters interpolated by the client)")
	case c.wire != nil:
		env.Set("statements", "prepared, sent by fairbench (COM_STMT_EXECUTE on the socket)")
	default:
		env.Set("statements", "prepared, sent by go-sql-driver")
	}
	if c.cfg.Autocommit != "" {
		env.Set("autocommit", c.cfg.Autocommit)
	}
	var size int64
	if err := c.c.QueryRowContext(ctx, `SELECT coalesce(sum(data_length + index_length), 0)
		FROM information_schema.tables WHERE table_schema = DATABASE()`).Scan(&size); err == nil {
		env.SizeText = strconv.FormatInt(size, 10) + " bytes"
	}
	if c.cfg.Autocommit == "0" {
		// End the transaction these reads opened, so it holds no metadata locks.
		_ = c.Exec(ctx, "ROLLBACK")
	}
	return env, nil
}

func (c *conn) collect(ctx context.Context, into map[string]string, q string) error {
	rows, err := c.c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var value *string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		name = strings.ToLower(name)
		if strings.Contains(name, "password") {
			continue
		}
		if value != nil {
			into[name] = *value
		} else {
			into[name] = ""
		}
	}
	return rows.Err()
}
