// Package sqldb holds what the drivers built on database/sql share: each client
// owns exactly one connection, the way a pgbench or sysbench client does, so a
// lost connection is reported instead of silently replaced by the pool.
package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Conn is one client's connection with the pool that holds it and the
// statements prepared on it.
type Conn struct {
	DB    *sql.DB
	C     *sql.Conn
	Stmts []*sql.Stmt
}

// Open takes db's single connection; on error db is closed.
func Open(ctx context.Context, db *sql.DB) (*Conn, error) {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Conn{DB: db, C: c}, nil
}

// Prepare prepares a statement on the connection and keeps it for Close.
func (c *Conn) Prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	s, err := c.C.PrepareContext(ctx, q)
	if err == nil {
		c.Stmts = append(c.Stmts, s)
	}
	return s, err
}

// Close closes the statements, the connection and the pool.
func (c *Conn) Close() error {
	for _, s := range c.Stmts {
		s.Close()
	}
	err := c.C.Close()
	if err2 := c.DB.Close(); err == nil {
		err = err2
	}
	return err
}

// rows streams a database/sql result set as driver.Rows, converting each
// value with driver.Assign so that every engine scans alike.
type rows struct {
	r    *sql.Rows
	cols []string
	// bytes: the column holds bytes (BLOB, BINARY, BIT); the drivers hand out
	// text as []byte too, which *any then receives as a string.
	bytes []bool
	vals  []any
	ptrs  []any
}

// NewRows wraps r; err, if not nil, is returned as is (r is then nil).
func NewRows(r *sql.Rows, err error) (driver.Rows, error) {
	if err != nil {
		return nil, err
	}
	cols, err := r.Columns()
	if err != nil {
		r.Close()
		return nil, err
	}
	rs := &rows{r: r, cols: cols, bytes: make([]bool, len(cols)), vals: make([]any, len(cols)), ptrs: make([]any, len(cols))}
	for i := range rs.vals {
		rs.ptrs[i] = &rs.vals[i]
	}
	if types, err := r.ColumnTypes(); err == nil {
		for i, ct := range types {
			name := strings.ToUpper(ct.DatabaseTypeName())
			rs.bytes[i] = strings.Contains(name, "BLOB") || strings.Contains(name, "BINARY") || name == "BIT" || name == "GEOMETRY"
		}
	}
	return rs, nil
}

// Next implements driver.Rows.
func (rs *rows) Next() bool { return rs.r.Next() }

// Scan implements driver.Rows.
func (rs *rows) Scan(dest ...any) error {
	if len(dest) != len(rs.cols) {
		return fmt.Errorf("%d destinations for %d columns", len(dest), len(rs.cols))
	}
	if err := rs.r.Scan(rs.ptrs...); err != nil {
		return err
	}
	for i, d := range dest {
		v := rs.vals[i]
		if b, ok := v.([]byte); ok && !rs.bytes[i] {
			if _, toAny := d.(*any); toAny {
				v = string(b)
			}
		}
		if err := driver.Assign(d, v, rs.cols[i]); err != nil {
			return err
		}
	}
	return nil
}

// Err implements driver.Rows.
func (rs *rows) Err() error { return rs.r.Err() }

// Close implements driver.Rows.
func (rs *rows) Close() error { return rs.r.Close() }
