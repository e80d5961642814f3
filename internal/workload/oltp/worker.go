package oltp

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// Statement kinds, as oltp_common.lua's stmt_defs.
const (
	kPoint = iota
	kSimple
	kSum
	kOrder
	kDistinct
	kIndexUpdate
	kNonIndexUpdate
	kDelete
	kInsert
	nKinds
)

var stmtDefs = [nKinds]string{
	kPoint:          "SELECT c FROM sbtest%d WHERE id=$1",
	kSimple:         "SELECT c FROM sbtest%d WHERE id BETWEEN $1 AND $2",
	kSum:            "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN $1 AND $2",
	kOrder:          "SELECT c FROM sbtest%d WHERE id BETWEEN $1 AND $2 ORDER BY c",
	kDistinct:       "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN $1 AND $2 ORDER BY c",
	kIndexUpdate:    "UPDATE sbtest%d SET k=k+1 WHERE id=$1",
	kNonIndexUpdate: "UPDATE sbtest%d SET c=$1 WHERE id=$2",
	kDelete:         "DELETE FROM sbtest%d WHERE id=$1",
	kInsert:         "INSERT INTO sbtest%d (id, k, c, pad) VALUES ($1, $2, $3, $4)",
}

// kindsFor lists the statements a mode prepares, as each oltp_*.lua's prepare_statements.
func (in *instance) kindsFor() []int {
	ranges := []int{}
	if in.rangeSelects {
		ranges = []int{kSimple, kSum, kOrder, kDistinct}
	}
	writes := []int{kIndexUpdate, kNonIndexUpdate, kDelete, kInsert}
	switch in.mode {
	case pointSelect:
		return []int{kPoint}
	case readOnly:
		return append([]int{kPoint}, ranges...)
	case writeOnly:
		return writes
	case readWrite:
		return append(append([]int{kPoint}, ranges...), writes...)
	case updateIndex:
		return []int{kIndexUpdate}
	case updateNonIndex:
		return []int{kNonIndexUpdate}
	case deleteOnly:
		return []int{kDelete}
	}
	return nil // insert: sysbench sends a text query per event
}

// client is one connection's prepared statements and scratch space.
type client struct {
	in    *instance
	c     driver.SQL
	stmts [][nKinds]driver.Stmt // per table (index 0 = sbtest1)
	begin driver.Stmt
	end   driver.Stmt
	cnt   *counters
	cbuf  []byte
	pbuf  []byte
}

// NewWorker implements workload.Instance.
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	c, err := workload.SQLConn("oltp", conn)
	if err != nil {
		return nil, err
	}
	cl := &client{in: in, c: c, cnt: &counters{}, stmts: make([][nKinds]driver.Stmt, in.tables),
		cbuf: make([]byte, 0, len(cTemplate)), pbuf: make([]byte, 0, len(padTemplate))}
	for t := int64(1); t <= in.tables; t++ {
		for _, k := range in.kindsFor() {
			s, err := c.Prepare(ctx, fmt.Sprintf(stmtDefs[k], t))
			if err != nil {
				return nil, fmt.Errorf("preparing %s: %w", fmt.Sprintf(stmtDefs[k], t), err)
			}
			cl.stmts[t-1][k] = s
		}
	}
	transactional := in.mode == readOnly || in.mode == writeOnly || in.mode == readWrite
	if transactional && !in.skipTrx {
		begin := "BEGIN"
		if c.Dialect() == "sqlite" && in.writes() {
			// Two deferred SQLite transactions that both go on to write fail with
			// SQLITE_BUSY at once instead of waiting; take the write lock up front.
			begin = "BEGIN IMMEDIATE"
		}
		if cl.begin, err = c.Prepare(ctx, begin); err != nil {
			return nil, err
		}
		if cl.end, err = c.Prepare(ctx, "COMMIT"); err != nil {
			return nil, err
		}
	}
	in.mu.Lock()
	in.counters = append(in.counters, cl.cnt)
	in.mu.Unlock()
	op := map[string]func(context.Context, *rand.Rand) error{
		pointSelect: cl.pointSelectEvent, readOnly: cl.transaction, writeOnly: cl.transaction, readWrite: cl.transaction,
		updateIndex: cl.indexUpdates, updateNonIndex: cl.nonIndexUpdates, insert: cl.insertEvent, deleteOnly: cl.deleteEvent,
	}[in.mode]
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		if in.events > 0 && in.budget.Add(-1) < 0 {
			return 0, workload.ErrClientDone // sysbench --events: all were run
		}
		if err := op(ctx, rng); err != nil {
			if cl.begin != nil {
				return 0, sqlwork.Rollback(ctx, c, err)
			}
			return 0, err
		}
		return 0, nil
	}, nil
}

func (cl *client) table(rng *rand.Rand) int64 { return uniform(rng, 1, cl.in.tables) }
func (cl *client) id(rng *rand.Rand) int64    { return cl.in.dist.next(rng, 1, cl.in.tableSize) }

func (cl *client) read(ctx context.Context, s driver.Stmt, args ...any) error {
	if err := s.Exec(ctx, args...); err != nil {
		return err
	}
	cl.cnt.read.Add(1)
	return nil
}

func (cl *client) write(ctx context.Context, s driver.Stmt, args ...any) error {
	if err := s.Exec(ctx, args...); err != nil {
		return err
	}
	cl.cnt.write.Add(1)
	return nil
}

func (cl *client) other(ctx context.Context, s driver.Stmt) error {
	if err := s.Exec(ctx); err != nil {
		return err
	}
	cl.cnt.other.Add(1)
	return nil
}

// transaction is oltp_read_only / oltp_write_only / oltp_read_write's event():
// the statement groups in the scripts' order, each drawing its own table.
func (cl *client) transaction(ctx context.Context, rng *rand.Rand) error {
	in := cl.in
	if cl.begin != nil {
		if err := cl.other(ctx, cl.begin); err != nil {
			return err
		}
	}
	if in.mode != writeOnly {
		if err := cl.pointSelects(ctx, rng, in.pointSelects); err != nil {
			return err
		}
		if in.rangeSelects {
			for _, r := range []struct {
				kind int
				n    int64
			}{{kSimple, in.simpleRanges}, {kSum, in.sumRanges}, {kOrder, in.orderRanges}, {kDistinct, in.distinctRanges}} {
				if err := cl.ranges(ctx, rng, r.kind, r.n); err != nil {
					return err
				}
			}
		}
	}
	if in.mode != readOnly {
		if err := cl.indexUpdates(ctx, rng); err != nil {
			return err
		}
		if err := cl.nonIndexUpdates(ctx, rng); err != nil {
			return err
		}
		if err := cl.deleteInserts(ctx, rng); err != nil {
			return err
		}
	}
	if cl.end != nil {
		return cl.other(ctx, cl.end)
	}
	return nil
}

func (cl *client) pointSelectEvent(ctx context.Context, rng *rand.Rand) error {
	return cl.pointSelects(ctx, rng, cl.in.pointSelects)
}

func (cl *client) pointSelects(ctx context.Context, rng *rand.Rand, n int64) error {
	s := cl.stmts[cl.table(rng)-1][kPoint]
	for i := int64(0); i < n; i++ {
		if err := cl.read(ctx, s, cl.id(rng)); err != nil {
			return err
		}
	}
	return nil
}

func (cl *client) ranges(ctx context.Context, rng *rand.Rand, kind int, n int64) error {
	s := cl.stmts[cl.table(rng)-1][kind]
	for i := int64(0); i < n; i++ {
		id := cl.id(rng)
		if err := cl.read(ctx, s, id, id+cl.in.rangeSize-1); err != nil {
			return err
		}
	}
	return nil
}

func (cl *client) indexUpdates(ctx context.Context, rng *rand.Rand) error {
	s := cl.stmts[cl.table(rng)-1][kIndexUpdate]
	for i := int64(0); i < cl.in.indexUpdates; i++ {
		if err := cl.write(ctx, s, cl.id(rng)); err != nil {
			return err
		}
	}
	return nil
}

func (cl *client) nonIndexUpdates(ctx context.Context, rng *rand.Rand) error {
	s := cl.stmts[cl.table(rng)-1][kNonIndexUpdate]
	for i := int64(0); i < cl.in.nonIndexUpdates; i++ {
		// sysbench sets c before drawing the id.
		c := string(randString(rng, cTemplate, cl.cbuf))
		if err := cl.write(ctx, s, c, cl.id(rng)); err != nil {
			return err
		}
	}
	return nil
}

func (cl *client) deleteInserts(ctx context.Context, rng *rand.Rand) error {
	t := cl.table(rng) - 1
	del, ins := cl.stmts[t][kDelete], cl.stmts[t][kInsert]
	for i := int64(0); i < cl.in.deleteInserts; i++ {
		id := cl.id(rng)
		k := cl.id(rng)
		c := string(randString(rng, cTemplate, cl.cbuf))
		pad := string(randString(rng, padTemplate, cl.pbuf))
		if err := cl.write(ctx, del, id); err != nil {
			return err
		}
		if err := cl.write(ctx, ins, id, k, c, pad); err != nil {
			return err
		}
	}
	return nil
}

func (cl *client) deleteEvent(ctx context.Context, rng *rand.Rand) error {
	t := cl.table(rng)
	return cl.write(ctx, cl.stmts[t-1][kDelete], cl.id(rng))
}

// insertEvent is oltp_insert.lua: a text query (sysbench does not prepare it)
// with the values written into the statement. With auto_inc the engine assigns
// the id (MySQL: id 0; PostgreSQL and SQLite: the column is left out); without,
// ids come from sysbench.rand.unique shifted into INTEGER's range.
func (cl *client) insertEvent(ctx context.Context, rng *rand.Rand) error {
	t := cl.table(rng)
	k := cl.id(rng)
	c := randString(rng, cTemplate, cl.cbuf)
	pad := randString(rng, padTemplate, cl.pbuf)
	var q string
	switch {
	case cl.in.autoInc && cl.c.Dialect() != "mysql":
		q = fmt.Sprintf("INSERT INTO sbtest%d (k, c, pad) VALUES (%d, '%s', '%s')", t, k, c, pad)
	default:
		id := int64(0)
		if !cl.in.autoInc {
			id = int64(cl.in.unique.next()) - 2147483648
		}
		q = fmt.Sprintf("INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", t, id, k, c, pad)
	}
	if err := cl.c.Exec(ctx, q); err != nil {
		return err
	}
	cl.cnt.write.Add(1)
	return nil
}
