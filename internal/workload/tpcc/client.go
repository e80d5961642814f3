package tpcc

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// clientTxns runs each transaction as SQL statements prepared once per
// session, the portable implementation (go-tpc's way). New-Order reads its
// items and locks their stock rows with one statement each, and writes its
// order lines with one multi-row INSERT; statements whose text depends on
// the number of lines (5–15) or the district (s_dist_01–10) are prepared
// when first needed.
type clientTxns struct {
	c         driver.SQL
	forUpdate string

	begin, commit driver.Stmt
	// beginRead starts the read-only transactions: on SQLite a deferred
	// BEGIN, which does not wait for the write lock.
	beginRead driver.Stmt

	custWarehouse, districtNext, districtSetNext, insertOrder, insertNewOrder, updateStock driver.Stmt
	items, stock, orderLines                                                               map[int]driver.Stmt

	warehouseYTD, warehouseAddr, districtYTD, districtAddr, customerIDs, customerPay, customerData,
	customerPayBC, customerPayGC, insertHistory driver.Stmt

	customerBalance, lastOrder, orderLinesOf driver.Stmt

	oldestNewOrder, deleteNewOrder, orderCustomer, setCarrier, deliverLines, sumLines, creditCustomer driver.Stmt

	districtNextRead, lowStock driver.Stmt

	// New-Order scratch, reused so that a transaction allocates nothing of
	// its own: stock rows live in stockBuf (capacity 15, the most lines an
	// order has, so pointers into it stay valid), rows indexes them.
	args     []any
	itemIDs  []any
	prices   map[int64]int64 // cents by item id; also the set of distinct items
	stockBuf []stockRow
	rows     map[stockKey]*stockRow
}

type stockKey struct{ w, i int64 }

type stockRow struct {
	quantity int64
	dist     string
	price    int64 // cents
}

func newClientTxns(ctx context.Context, c driver.SQL) (*clientTxns, error) {
	t := &clientTxns{c: c, forUpdate: " FOR UPDATE", items: map[int]driver.Stmt{}, stock: map[int]driver.Stmt{},
		orderLines: map[int]driver.Stmt{}, rows: map[stockKey]*stockRow{},
		prices: map[int64]int64{}, stockBuf: make([]stockRow, 0, 15)}
	begin := "BEGIN"
	if c.Dialect() == "sqlite" {
		// SQLite must take the write lock at BEGIN: two deferred transactions
		// that both go on to write fail at once instead of waiting.
		begin, t.forUpdate = "BEGIN IMMEDIATE", ""
	}
	var err error
	prep := func(q string) driver.Stmt {
		if err != nil {
			return nil
		}
		var s driver.Stmt
		if s, err = c.Prepare(ctx, q); err != nil {
			err = fmt.Errorf("preparing %q: %w", q, err)
		}
		return s
	}
	fu := t.forUpdate
	t.begin = prep(begin)
	t.beginRead = prep("BEGIN")
	t.commit = prep("COMMIT")
	t.custWarehouse = prep("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3")
	t.districtNext = prep("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = $1 AND d_id = $2" + fu)
	t.districtSetNext = prep("UPDATE district SET d_next_o_id = $1 WHERE d_w_id = $2 AND d_id = $3")
	t.insertOrder = prep("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP, NULL, $5, $6)")
	t.insertNewOrder = prep("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)")
	t.updateStock = prep("UPDATE stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $3 WHERE s_w_id = $4 AND s_i_id = $5")

	t.warehouseYTD = prep("UPDATE warehouse SET w_ytd = w_ytd + CAST($1 AS DECIMAL(12,2)) WHERE w_id = $2")
	t.warehouseAddr = prep("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $1")
	t.districtYTD = prep("UPDATE district SET d_ytd = d_ytd + CAST($1 AS DECIMAL(12,2)) WHERE d_w_id = $2 AND d_id = $3")
	t.districtAddr = prep("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = $1 AND d_id = $2")
	t.customerIDs = prep("SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first")
	t.customerPay = prep("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, " +
		"c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3" + fu)
	t.customerData = prep("SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")
	t.customerPayBC = prep("UPDATE customer SET c_balance = c_balance - CAST($1 AS DECIMAL(12,2)), c_ytd_payment = c_ytd_payment + CAST($2 AS DECIMAL(12,2)), " +
		"c_payment_cnt = c_payment_cnt + 1, c_data = $3 WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6")
	t.customerPayGC = prep("UPDATE customer SET c_balance = c_balance - CAST($1 AS DECIMAL(12,2)), c_ytd_payment = c_ytd_payment + CAST($2 AS DECIMAL(12,2)), " +
		"c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = $5")
	t.insertHistory = prep("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) " +
		"VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP, CAST($6 AS DECIMAL(6,2)), $7)")

	t.customerBalance = prep("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")
	t.lastOrder = prep("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1")
	t.orderLinesOf = prep("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")

	t.oldestNewOrder = prep("SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id LIMIT 1" + fu)
	t.deleteNewOrder = prep("DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3")
	t.orderCustomer = prep("SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3")
	t.setCarrier = prep("UPDATE orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4")
	t.deliverLines = prep("UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")
	t.sumLines = prep("SELECT coalesce(sum(ol_amount), 0) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")
	t.creditCustomer = prep("UPDATE customer SET c_balance = c_balance + CAST($1 AS DECIMAL(12,2)), c_delivery_cnt = c_delivery_cnt + 1 " +
		"WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4")

	t.districtNextRead = prep("SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2")
	t.lowStock = prep("SELECT count(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $4 " +
		"AND s_w_id = $5 AND s_i_id = ol_i_id AND s_quantity < $6")
	if err != nil {
		return nil, err
	}
	return t, nil
}

// New-Order's statements whose text depends on the number of lines.
const (
	itemsStmt = iota
	stockStmt
	linesStmt
)

// newOrderStmt returns New-Order's statement of kind for n values (and, for
// the stock, district dID's s_dist column), preparing it the first time.
func (t *clientTxns) newOrderStmt(ctx context.Context, kind, n int, dID int64) (driver.Stmt, error) {
	cache := [...]map[int]driver.Stmt{itemsStmt: t.items, stockStmt: t.stock, linesStmt: t.orderLines}[kind]
	key := int(dID)<<8 | n
	if s, ok := cache[key]; ok {
		return s, nil
	}
	var q string
	switch kind {
	case itemsStmt:
		q = "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + placeholders(1, n, 1) + ")"
	case stockStmt:
		q = fmt.Sprintf("SELECT s_w_id, s_i_id, s_quantity, s_dist_%02d FROM stock WHERE (s_w_id, s_i_id) IN (%s)%s",
			dID, placeholders(1, n, 2), t.forUpdate)
	default:
		q = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " +
			placeholders(1, n, 9)
	}
	s, err := t.c.Prepare(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("preparing %q: %w", q, err)
	}
	cache[key] = s
	return s, nil
}

// placeholders writes n placeholders from $first, each group of size
// parenthesised when size > 1: "$1, $2" or "($1, $2), ($3, $4)".
func placeholders(first, n, size int) string {
	var b strings.Builder
	p := first
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if size > 1 {
			b.WriteByte('(')
		}
		for j := 0; j < size; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(p))
			p++
		}
		if size > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}

func (t *clientTxns) fail(ctx context.Context, err error) error {
	return sqlwork.Rollback(ctx, t.c, err)
}

func (t *clientTxns) newOrder(ctx context.Context, in *newOrderIn) error {
	n := len(in.lines)
	t.distinctRows(in)
	nstock := len(t.rows)
	itemIDs := t.itemIDs
	items, err := t.newOrderStmt(ctx, itemsStmt, len(itemIDs), 0)
	if err != nil {
		return err
	}
	stock, err := t.newOrderStmt(ctx, stockStmt, nstock, in.dID)
	if err != nil {
		return err
	}
	lines, err := t.newOrderStmt(ctx, linesStmt, n, 0)
	if err != nil {
		return err
	}

	if err := t.begin.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	if err := scanOne(ctx, t.custWarehouse, []any{in.wID, in.dID, in.cID}, new(string), new(string), new(string), new(string)); err != nil {
		return t.fail(ctx, err)
	}
	var next int64
	if err := scanOne(ctx, t.districtNext, []any{in.wID, in.dID}, &next, new(string)); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.districtSetNext.Exec(ctx, next+1, in.wID, in.dID); err != nil {
		return t.fail(ctx, err)
	}
	allLocal := int64(0)
	if in.allLocal {
		allLocal = 1
	}
	if err := t.insertOrder.Exec(ctx, next, in.dID, in.wID, in.cID, int64(n), allLocal); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.insertNewOrder.Exec(ctx, next, in.dID, in.wID); err != nil {
		return t.fail(ctx, err)
	}
	prices := t.prices
	found, err := t.readPrices(ctx, items, itemIDs)
	if err != nil {
		return t.fail(ctx, err)
	}
	if found < len(itemIDs) {
		// Clause 2.4.2.3: an unused item number rolls the whole order back.
		if err := t.c.Exec(ctx, "ROLLBACK"); err != nil {
			return err
		}
		return errRolledBack
	}
	if err := t.readStock(ctx, stock); err != nil {
		return t.fail(ctx, err)
	}
	t.args = t.args[:0]
	for num, l := range in.lines {
		r := t.rows[stockKey{l.supplyWID, l.itemID}]
		// Clause 2.4.2.2: stock is replenished by 91 when it would fall below 10.
		if r.quantity-l.quantity >= 10 {
			r.quantity -= l.quantity
		} else {
			r.quantity += 91 - l.quantity
		}
		remote := int64(0)
		if l.supplyWID != in.wID {
			remote = 1
		}
		if err := t.updateStock.Exec(ctx, r.quantity, l.quantity, remote, l.supplyWID, l.itemID); err != nil {
			return t.fail(ctx, err)
		}
		t.args = append(t.args, next, in.dID, in.wID, int64(num+1), l.itemID, l.supplyWID, l.quantity,
			money(l.quantity*prices[l.itemID]), r.dist)
	}
	if err := lines.Exec(ctx, t.args...); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.commit.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	return nil
}

// distinctRows collects the order's distinct items and stock rows (an order
// may name an item twice): t.rows, t.prices (all unread) and t.itemIDs, and
// in t.args the stock rows' keys.
func (t *clientTxns) distinctRows(in *newOrderIn) {
	clear(t.rows)
	clear(t.prices)
	t.args, t.itemIDs, t.stockBuf = t.args[:0], t.itemIDs[:0], t.stockBuf[:0]
	for _, l := range in.lines {
		k := stockKey{l.supplyWID, l.itemID}
		if _, ok := t.rows[k]; !ok {
			t.stockBuf = append(t.stockBuf, stockRow{})
			t.rows[k] = &t.stockBuf[len(t.stockBuf)-1]
			t.args = append(t.args, l.supplyWID, l.itemID)
		}
		if _, ok := t.prices[l.itemID]; !ok {
			t.prices[l.itemID] = -1 // not read yet
			t.itemIDs = append(t.itemIDs, l.itemID)
		}
	}
}

// readPrices reads the items' prices into t.prices; found is how many of
// them exist.
func (t *clientTxns) readPrices(ctx context.Context, items driver.Stmt, itemIDs []any) (found int, err error) {
	rows, err := items.Query(ctx, itemIDs...)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id int64
		var price, name, data string
		if err := rows.Scan(&id, &price, &name, &data); err != nil {
			rows.Close()
			return 0, err
		}
		if t.prices[id] < 0 {
			found++
		}
		t.prices[id] = cents(price)
	}
	return found, rows.Close()
}

// readStock reads the quantity and district text of the stock rows whose
// keys t.args holds.
func (t *clientTxns) readStock(ctx context.Context, stock driver.Stmt) error {
	rows, err := stock.Query(ctx, t.args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var w, i, q int64
		var dist string
		if err := rows.Scan(&w, &i, &q, &dist); err != nil {
			rows.Close()
			return err
		}
		if r, ok := t.rows[stockKey{w, i}]; ok {
			r.quantity, r.dist = q, dist
		}
	}
	return rows.Close()
}

// cents reads a decimal amount ("12.34", or SQLite's float text) in cents.
func cents(s string) int64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return int64(math.Round(f * 100))
}

// scanOne runs st with args and scans its one row into dest; no row is an error.
func scanOne(ctx context.Context, st driver.Stmt, args []any, dest ...any) error {
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return err
	}
	if !rows.Next() {
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return errNoRow
	}
	if err := rows.Scan(dest...); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

var errNoRow = fmt.Errorf("a row the transaction needs is missing: the data set is not a complete TPC-C load")

// customerByName returns the id of the (n/2 rounded up)-th customer of that
// last name by first name (clause 2.5.2.2).
func (t *clientTxns) customerByName(ctx context.Context, w, d int64, last string) (int64, error) {
	rows, err := t.customerIDs.Query(ctx, w, d, last)
	if err != nil {
		return 0, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in warehouse %d, district %d: %w", last, w, d, errNoRow)
	}
	return ids[(len(ids)-1)/2], nil
}

func (t *clientTxns) payment(ctx context.Context, in *paymentIn) error {
	if err := t.begin.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	// The district before the warehouse, as go-tpc orders them: the
	// warehouse row is every Payment's at that warehouse, and locking it
	// later holds it for two statements less.
	var wName, dName string
	s := new(string)
	if err := t.districtYTD.Exec(ctx, in.amount, in.wID, in.dID); err != nil {
		return t.fail(ctx, err)
	}
	if err := scanOne(ctx, t.districtAddr, []any{in.wID, in.dID}, &dName, s, s, s, s, s); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.warehouseYTD.Exec(ctx, in.amount, in.wID); err != nil {
		return t.fail(ctx, err)
	}
	if err := scanOne(ctx, t.warehouseAddr, []any{in.wID}, &wName, s, s, s, s, s); err != nil {
		return t.fail(ctx, err)
	}
	cID := in.cID
	if cID == 0 {
		var err error
		if cID, err = t.customerByName(ctx, in.cWID, in.cDID, in.cLast); err != nil {
			return t.fail(ctx, err)
		}
	}
	var credit string
	var since any
	if err := scanOne(ctx, t.customerPay, []any{in.cWID, in.cDID, cID}, s, s, s, s, s, s, s, s, s, &since, &credit, s, s, s); err != nil {
		return t.fail(ctx, err)
	}
	if strings.TrimSpace(credit) == "BC" {
		var data string
		if err := scanOne(ctx, t.customerData, []any{in.cWID, in.cDID, cID}, &data); err != nil {
			return t.fail(ctx, err)
		}
		data = fmt.Sprintf("%d %d %d %d %d %s | %s", cID, in.cDID, in.cWID, in.dID, in.wID, in.amount, data)
		if len(data) > 500 {
			data = data[:500]
		}
		if err := t.customerPayBC.Exec(ctx, in.amount, in.amount, data, in.cWID, in.cDID, cID); err != nil {
			return t.fail(ctx, err)
		}
	} else if err := t.customerPayGC.Exec(ctx, in.amount, in.amount, in.cWID, in.cDID, cID); err != nil {
		return t.fail(ctx, err)
	}
	hData := strings.TrimRight(wName, " ") + "    " + strings.TrimRight(dName, " ")
	if err := t.insertHistory.Exec(ctx, cID, in.cDID, in.cWID, in.dID, in.wID, in.amount, hData); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.commit.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	return nil
}

func (t *clientTxns) orderStatus(ctx context.Context, in *orderStatusIn) error {
	if err := t.beginRead.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	cID := in.cID
	if cID == 0 {
		var err error
		if cID, err = t.customerByName(ctx, in.wID, in.dID, in.cLast); err != nil {
			return t.fail(ctx, err)
		}
	}
	s := new(string)
	if err := scanOne(ctx, t.customerBalance, []any{in.wID, in.dID, cID}, s, s, s, s); err != nil {
		return t.fail(ctx, err)
	}
	var oID int64
	var carrier, entry any
	if err := scanOne(ctx, t.lastOrder, []any{in.wID, in.dID, cID}, &oID, &carrier, &entry); err != nil {
		return t.fail(ctx, err)
	}
	rows, err := t.orderLinesOf.Query(ctx, in.wID, in.dID, oID)
	if err != nil {
		return t.fail(ctx, err)
	}
	for rows.Next() {
		var item, supply, qty int64
		var amount string
		var delivered any
		if err := rows.Scan(&item, &supply, &qty, &amount, &delivered); err != nil {
			rows.Close()
			return t.fail(ctx, err)
		}
	}
	if err := rows.Close(); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.commit.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	return nil
}

func (t *clientTxns) delivery(ctx context.Context, in *deliveryIn) error {
	if err := t.begin.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		var oID int64
		err := scanOne(ctx, t.oldestNewOrder, []any{in.wID, d}, &oID)
		if err == errNoRow {
			continue // clause 2.7.4.2: a district with nothing to deliver is skipped
		}
		if err != nil {
			return t.fail(ctx, err)
		}
		if err := t.deleteNewOrder.Exec(ctx, in.wID, d, oID); err != nil {
			return t.fail(ctx, err)
		}
		var cID int64
		if err := scanOne(ctx, t.orderCustomer, []any{in.wID, d, oID}, &cID); err != nil {
			return t.fail(ctx, err)
		}
		if err := t.setCarrier.Exec(ctx, in.carrierID, in.wID, d, oID); err != nil {
			return t.fail(ctx, err)
		}
		if err := t.deliverLines.Exec(ctx, in.wID, d, oID); err != nil {
			return t.fail(ctx, err)
		}
		var total string
		if err := scanOne(ctx, t.sumLines, []any{in.wID, d, oID}, &total); err != nil {
			return t.fail(ctx, err)
		}
		if err := t.creditCustomer.Exec(ctx, money(cents(total)), in.wID, d, cID); err != nil {
			return t.fail(ctx, err)
		}
	}
	if err := t.commit.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	return nil
}

func (t *clientTxns) stockLevel(ctx context.Context, in *stockLevelIn) error {
	if err := t.beginRead.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	next, err := t.districtNextRead.QueryInt64(ctx, in.wID, in.dID)
	if err != nil {
		return t.fail(ctx, err)
	}
	if _, err := t.lowStock.QueryInt64(ctx, in.wID, in.dID, next, next-20, in.wID, in.threshold); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.commit.Exec(ctx); err != nil {
		return t.fail(ctx, err)
	}
	return nil
}
