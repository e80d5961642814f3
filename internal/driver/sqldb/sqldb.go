// Package sqldb holds what the drivers built on database/sql share: each client
// owns exactly one connection, the way a pgbench or sysbench client does, so a
// lost connection is reported instead of silently replaced by the pool.
package sqldb

import (
	"context"
	"database/sql"
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
