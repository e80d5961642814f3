package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// A load is deterministic per warehouse: every row of warehouse w comes from
// a generator seeded with (seed, w, table), and the items from (seed, 0), so
// warehouses load in any order, on any number of connections, and a load cut
// short resumes by reloading only the warehouses it had not finished. The
// progress table records each finished warehouse and the load's timestamp
// (c_since, h_date, o_entry_d), which a resumed load reuses so that its rows
// are the ones an uninterrupted load writes.
const progressTable = "fairbench_tpcc_progress"

// progressLoadTime is the progress row that holds the load's timestamp.
const progressLoadTime = -1

// tableSeeds keep each table's random draws apart.
const (
	seedItem = iota + 1
	seedWarehouse
	seedStock
	seedDistrict
	seedCustomer
	seedHistory
	seedOrders
)

func tableRand(seed uint64, w int64, table int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^uint64(table)<<56, uint64(w)))
}

// loader loads warehouses into one target.
type loader struct {
	seed     uint64
	c        cConstants
	at       string // the load's timestamp, "2006-01-02 15:04:05"
	pad      bool   // CHAR(n) columns are padded by fairbench (not PostgreSQL)
	logf     func(string, ...any)
	progress func(ctx context.Context, conn driver.SQL, w int64) error
}

// rowsOf adapts a function producing one row per call to driver.RowSource.
type rowsOf struct {
	n, i int64
	vals []any
	row  func(i int64, vals []any) []any
}

func (r *rowsOf) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	r.vals = r.row(r.i, r.vals[:0])
	return true
}

func (r *rowsOf) Values() []any { return r.vals }

func newRows(n int64, row func(i int64, vals []any) []any) *rowsOf { return &rowsOf{n: n, row: row} }

// char pads s to width when the engine does not (CHAR(n) semantics everywhere).
func (l *loader) char(s string, width int) string {
	if l.pad && len(s) < width {
		return s + strings.Repeat(" ", width-len(s))
	}
	return s
}

func (l *loader) bulk(ctx context.Context, conn driver.Conn, table string, rows driver.RowSource) error {
	bl, ok := conn.(driver.BulkLoader)
	if !ok {
		return errors.New("this driver has no bulk load path")
	}
	if _, err := bl.BulkLoad(ctx, table, columnNames(table), rows, false); err != nil {
		return fmt.Errorf("loading %s: %w", table, err)
	}
	return nil
}

// items loads the 100 000 items (clause 4.3.3.1).
func (l *loader) items(ctx context.Context, conn driver.Conn) error {
	r := tableRand(l.seed, 0, seedItem)
	return l.bulk(ctx, conn, "item", newRows(itemsCount, func(i int64, v []any) []any {
		name := string(aString(nil, r, 14, 24))
		return append(v, i, between(r, 1, 10000), name, money(between(r, 100, 10000)), dataString(r))
	}))
}

// warehouse loads warehouse w's row and its stock.
func (l *loader) warehouse(ctx context.Context, conn driver.Conn, w int64) error {
	r := tableRand(l.seed, w, seedWarehouse)
	if err := l.bulk(ctx, conn, "warehouse", newRows(1, func(_ int64, v []any) []any {
		return append(l.address(append(v, w, string(aString(nil, r, 6, 10))), r), rate(between(r, 0, 2000)), "300000.00")
	})); err != nil {
		return err
	}
	r = tableRand(l.seed, w, seedStock)
	return l.bulk(ctx, conn, "stock", newRows(stockPerWarehouse, func(i int64, v []any) []any {
		v = append(v, i, w, between(r, 10, 100))
		for d := 0; d < districtsPerWarehouse; d++ {
			v = append(v, string(aString(nil, r, 24, 24)))
		}
		return append(v, int64(0), int64(0), int64(0), dataString(r))
	}))
}

// district loads one district's row, customers, history, orders, order
// lines and new orders.
func (l *loader) district(ctx context.Context, conn driver.Conn, w, d int64) error {
	key := w*100 + d
	r := tableRand(l.seed, key, seedDistrict)
	if err := l.bulk(ctx, conn, "district", newRows(1, func(_ int64, v []any) []any {
		v = l.address(append(v, d, w, string(aString(nil, r, 6, 10))), r)
		return append(v, rate(between(r, 0, 2000)), "30000.00", int64(ordersPerDistrict+1))
	})); err != nil {
		return err
	}
	r = tableRand(l.seed, key, seedCustomer)
	if err := l.bulk(ctx, conn, "customer", newRows(customersPerDistrict, func(c int64, v []any) []any {
		last := c - 1
		if c > 1000 {
			last = nuRand(r, 255, l.c.last, 0, 999)
		}
		v = append(v, c, d, w, string(aString(nil, r, 8, 16)), "OE", lastName(last))
		v = l.address(v, r)
		credit := "GC"
		if r.IntN(10) == 0 {
			credit = "BC"
		}
		return append(v, l.char(string(nString(nil, r, 16)), 16), l.at, credit, "50000.00", rate(between(r, 0, 5000)),
			"-10.00", "10.00", int64(1), int64(0), string(aString(nil, r, 300, 500)))
	})); err != nil {
		return err
	}
	r = tableRand(l.seed, key, seedHistory)
	if err := l.bulk(ctx, conn, "history", newRows(customersPerDistrict, func(c int64, v []any) []any {
		return append(v, c, d, w, d, w, l.at, "10.00", string(aString(nil, r, 12, 24)))
	})); err != nil {
		return err
	}
	// Orders go to a random permutation of the customers (clause 4.3.3.1).
	r = tableRand(l.seed, key, seedOrders)
	perm := r.Perm(customersPerDistrict)
	olCnt := make([]int64, ordersPerDistrict+1)
	for o := range olCnt[1:] {
		olCnt[o+1] = between(r, 5, 15)
	}
	if err := l.bulk(ctx, conn, "orders", newRows(ordersPerDistrict, func(o int64, v []any) []any {
		var carrier any
		if o < newOrdersFrom {
			carrier = between(r, 1, 10)
		}
		return append(v, o, d, w, int64(perm[o-1]+1), l.at, carrier, olCnt[o], int64(1))
	})); err != nil {
		return err
	}
	lines := &orderLines{l: l, r: r, w: w, d: d, cnt: olCnt}
	if err := l.bulk(ctx, conn, "order_line", lines); err != nil {
		return err
	}
	return l.bulk(ctx, conn, "new_order", newRows(ordersPerDistrict-newOrdersFrom+1, func(i int64, v []any) []any {
		return append(v, newOrdersFrom+i-1, d, w)
	}))
}

// orderLines yields a district's order lines, o_ol_cnt of them per order.
type orderLines struct {
	l       *loader
	r       *rand.Rand
	w, d    int64
	cnt     []int64
	o, n    int64
	started bool
	vals    []any
}

func (x *orderLines) Next() bool {
	if !x.started {
		x.started, x.o = true, 1
	}
	x.n++
	if x.n > x.cnt[x.o] {
		x.o, x.n = x.o+1, 1
		if x.o > ordersPerDistrict {
			return false
		}
	}
	var delivered any
	amount := "0.00"
	if x.o < newOrdersFrom {
		delivered = x.l.at
	} else {
		amount = money(between(x.r, 1, 999999))
	}
	x.vals = append(x.vals[:0], x.o, x.d, x.w, x.n, between(x.r, 1, itemsCount), x.w, delivered, int64(5), amount,
		string(aString(nil, x.r, 24, 24)))
	return true
}

func (x *orderLines) Values() []any { return x.vals }

// address appends street 1, street 2, city, state and zip (clause 4.3.3.1).
func (l *loader) address(v []any, r *rand.Rand) []any {
	return append(v, string(aString(nil, r, 10, 20)), string(aString(nil, r, 10, 20)), string(aString(nil, r, 10, 20)),
		l.char(string(aString(nil, r, 2, 2)), 2), zip(r))
}

// A load is split into parts that load independently, each recorded in
// the progress table when it is complete: the items, and per warehouse its
// row with its stock and each of its ten districts. Parts rather than whole
// warehouses keep every connection busy when there are fewer warehouses than
// connections (one warehouse on two connections loads in about half the time).
const itemsPart = 0

// stockPart is warehouse w's row and stock; districtPart its district d.
func stockPart(w int64) int64       { return w * 100 }
func districtPart(w, d int64) int64 { return w*100 + d }
func partOf(key int64) (w, d int64) { return key / 100, key % 100 }
func partsOf(warehouses int64) []int64 {
	out := []int64{itemsPart}
	for w := int64(1); w <= warehouses; w++ {
		out = append(out, stockPart(w))
		for d := int64(1); d <= districtsPerWarehouse; d++ {
			out = append(out, districtPart(w, d))
		}
	}
	return out
}

// loadParts loads the parts in todo on up to workers connections at once,
// recording each finished one in the progress table, and says when a
// warehouse is complete.
func (l *loader) loadParts(ctx context.Context, env workload.PrepareEnv, todo []int64, workers int) error {
	if len(todo) == 0 {
		return nil
	}
	next := make(chan int64, len(todo))
	left := map[int64]int{} // parts of each warehouse still to load
	for _, p := range todo {
		next <- p
		if w, _ := partOf(p); w > 0 {
			left[w]++
		}
	}
	close(next)
	workers = min(workers, len(todo))
	if env.Open == nil {
		workers = 1
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	total := len(left)
	start := time.Now()
	// Parts are the items, each warehouse's own rows and each district's.
	task := env.Progress.Start(fmt.Sprintf("tpcc: loading %d warehouse(s)", total), int64(len(todo)), "parts")
	defer task.End()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn := env.Conn
			if i > 0 {
				var err error
				if conn, err = env.Open(ctx); err != nil {
					cancel(err)
					return
				}
				defer conn.Close(context.WithoutCancel(ctx))
			}
			c, _ := conn.(driver.SQL)
			for p := range next {
				if ctx.Err() != nil {
					return
				}
				w, d := partOf(p)
				var err error
				switch {
				case p == itemsPart:
					err = l.items(ctx, conn)
				case d == 0:
					err = l.warehouse(ctx, conn, w)
				default:
					err = l.district(ctx, conn, w, d)
				}
				if err == nil {
					err = l.progress(ctx, c, p)
				}
				if err != nil {
					cancel(fmt.Errorf("%s: %w", partName(p), err))
					return
				}
				task.Add(1)
				mu.Lock()
				if p == itemsPart {
					l.logf("tpcc: %d items loaded", itemsCount)
				} else if left[w]--; left[w] == 0 {
					done++
					l.logf("tpcc: warehouse %d loaded (%d of %d, %.1f s)", w, done, total, time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return context.Cause(ctx)
}

func partName(p int64) string {
	w, d := partOf(p)
	switch {
	case p == itemsPart:
		return "the items"
	case d == 0:
		return fmt.Sprintf("warehouse %d's stock", w)
	}
	return fmt.Sprintf("warehouse %d, district %d", w, d)
}

// loadTime formats a load's timestamp for every dialect's TIMESTAMP.
func loadTime(unix int64) string { return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04:05") }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
