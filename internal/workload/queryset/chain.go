package queryset

import (
	"context"
	"fmt"
	"slices"

	"github.com/fairbench/fairbench/internal/driver"
)

// chunkChain reads a session's chunks one after the other as one source, so
// that the session loads them through one BulkLoad: on ClickHouse one INSERT
// whose column buffers stay grown from block to block, where an INSERT per
// chunk started every chunk's first block with empty buffers
// (bench/README.md, "What limits the load").
type chunkChain struct {
	ctx  context.Context
	take func() (chunk func(context.Context) (driver.RowSource, error), ok bool)
	cur  driver.RowSource
	err  error
}

// newChunkChain opens the first chunk take hands out; nil when there is none.
// The chain is a driver.TypedRowSource when that chunk is one: every later
// chunk must then offer the same kinds.
func newChunkChain(ctx context.Context, take func() (func(context.Context) (driver.RowSource, error), bool)) (driver.RowSource, *chunkChain, error) {
	c := &chunkChain{ctx: ctx, take: take}
	if !c.open() {
		return nil, c, c.err
	}
	if t, ok := c.cur.(driver.TypedRowSource); ok {
		tc := &typedChunkChain{chunkChain: c, kinds: t.Kinds()}
		tc.typed = t
		return tc, c, nil
	}
	return c, c, nil
}

// open closes the current chunk and opens the next; false when there is
// none or it failed (err).
func (c *chunkChain) open() bool {
	if c.cur != nil {
		c.closeCur()
		if c.err != nil {
			return false
		}
	}
	chunk, ok := c.take()
	if !ok {
		return false
	}
	c.cur, c.err = chunk(c.ctx)
	return c.err == nil
}

// closeCur closes the current chunk, keeping its read error: a file's read
// error wins over the load's, which it usually causes.
func (c *chunkChain) closeCur() {
	if e, ok := c.cur.(interface{ Err() error }); ok && c.err == nil {
		c.err = e.Err()
	}
	if cl, ok := c.cur.(interface{ Close() error }); ok {
		_ = cl.Close()
	}
	c.cur = nil
}

func (c *chunkChain) Next() bool {
	for c.cur != nil {
		if c.cur.Next() {
			return true
		}
		if !c.open() {
			return false
		}
	}
	return false
}

func (c *chunkChain) Values() []any { return c.cur.Values() }

// Err is the first chunk's open or read error.
func (c *chunkChain) Err() error { return c.err }

// Close closes the chunk being read, when the load stopped inside it.
func (c *chunkChain) Close() error {
	if c.cur != nil {
		c.closeCur()
	}
	return nil
}

type typedChunkChain struct {
	*chunkChain
	kinds []driver.Kind
	typed driver.TypedRowSource
}

func (t *typedChunkChain) Next() bool {
	for t.cur != nil {
		if t.cur.Next() {
			return true
		}
		if !t.open() {
			return false
		}
		next, ok := t.cur.(driver.TypedRowSource)
		if !ok || !slices.Equal(next.Kinds(), t.kinds) {
			t.err = fmt.Errorf("internal: a table's chunks differ in their typed columns")
			t.closeCur()
			return false
		}
		t.typed = next
	}
	return false
}

func (t *typedChunkChain) Kinds() []driver.Kind { return t.kinds }

func (t *typedChunkChain) Typed() ([]int64, []string) { return t.typed.Typed() }
