package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/mysql"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The stored routines of implementation = "procedures" on a tiny hand-made
// data set, on PostgreSQL in every query mode and on MariaDB in both
// protocols and with autocommit off: each transaction's effects, checked
// row by row.

func TestProceduresPostgres(t *testing.T) {
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			url := testenv.FreshPostgres(t)
			// The concurrent part waits out PostgreSQL's deadlock_timeout
			// (1 s) per deadlock: once is enough, the query mode changes
			// nothing in the server.
			testProcedures(t, url, driver.Options{QueryMode: mode}, url, mode == "prepared")
		})
	}
}

func TestProceduresMySQL(t *testing.T) {
	for _, tc := range []struct {
		name, mode, path string // path: what the session's client path names
		query            []string
	}{
		{"prepared", "prepared", "", nil},
		{"simple", "simple", "", nil},
		{"prepared-plaintext", "prepared", "wire", []string{"tls", "false"}}, // fairbench's own protocol code
		{"autocommit-off", "prepared", "", []string{"autocommit", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := testenv.FreshMySQL(t)
			if tc.query != nil {
				url = testenv.WithQuery(t, url, tc.query...)
			}
			if path := testenv.Connect(t, url, driver.Options{QueryMode: tc.mode}).(driver.Path).ClientPath(); !strings.Contains(path, tc.path) {
				t.Fatalf("client path %q, want %q", path, tc.path)
			}
			// The checking session commits each statement, whatever the URL says.
			testProcedures(t, url, driver.Options{QueryMode: tc.mode}, testenv.WithQuery(t, url, "autocommit", "1"), true)
		})
	}
}

// procSQLiteSession is an SQLite session as far as the dialect goes.
type procSQLiteSession struct{ driver.SQL }

func (procSQLiteSession) Dialect() string { return "sqlite" }

func TestProceduresRefuseSQLite(t *testing.T) {
	ctx := context.Background()
	if _, err := newProcTxns(ctx, procSQLiteSession{}); err == nil || !strings.Contains(err.Error(), "implementation = client") {
		t.Fatalf("newProcTxns on SQLite: %v", err)
	}
	if err := installProcedures(ctx, procSQLiteSession{}); err == nil || !strings.Contains(err.Error(), "SQLite has none") {
		t.Fatalf("installProcedures on SQLite: %v", err)
	}
}

// procFixture is one session on a fresh database holding the tiny data set.
type procFixture struct {
	t     *testing.T
	ctx   context.Context
	c     driver.SQL // the session the transactions run on
	other driver.SQL // a second session, to see what was committed
}

// testProcedures runs the transactions on a session of url with opts, and
// checks their effects on a session of otherURL (the same database); then,
// with concurrent, runs them from several sessions at once.
func testProcedures(t *testing.T, url string, opts driver.Options, otherURL string, concurrent bool) {
	ctx := context.Background()
	f := &procFixture{t: t, ctx: ctx,
		c:     testenv.Connect(t, url, opts).(driver.SQL),
		other: testenv.Connect(t, otherURL, driver.Options{}).(driver.SQL)}
	f.load()
	for range 2 { // idempotent
		if err := installProcedures(ctx, f.c); err != nil {
			t.Fatal(err)
		}
	}
	p, err := newProcTxns(ctx, f.c)
	if err != nil {
		t.Fatal(err)
	}

	// New-Order in district 1 for customer 1: item 1 from warehouse 2
	// (remote), items 2 and 1 from the home warehouse; the routine takes the
	// stock rows in order, each line keeps its number.
	stockBefore := f.stock()
	if err := p.newOrder(ctx, &newOrderIn{wID: 1, dID: 1, cID: 1,
		lines: []orderLine{{1, 2, 2}, {2, 1, 5}, {1, 1, 3}}}); err != nil {
		t.Fatalf("new-order: %v", err)
	}
	f.unlocked()
	f.eq("d_next_o_id", "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1", 5)
	f.eq("d_next_o_id of district 2", "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 2", 4)
	f.eq("the order", "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 4 AND o_c_id = 1 "+
		"AND o_ol_cnt = 3 AND o_all_local = 0 AND o_carrier_id IS NULL", 1)
	f.eq("its new_order", "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 4", 1)
	f.eq("its lines", "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 4 AND ol_delivery_d IS NULL", 3)
	for _, l := range []struct {
		n, item, supply, qty, cents int64
	}{{1, 1, 2, 2, 2 * 1000}, {2, 2, 1, 5, 5 * 250}, {3, 1, 1, 3, 3 * 1000}} {
		where := fmt.Sprintf("FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 4 AND ol_number = %d", l.n)
		f.eq(fmt.Sprintf("line %d", l.n), fmt.Sprintf("SELECT count(*) %s AND ol_i_id = %d AND ol_supply_w_id = %d AND ol_quantity = %d "+
			"AND ol_dist_info = 'w%d i%d d01'", where, l.item, l.supply, l.qty, l.supply, l.item), 1)
		f.eq(fmt.Sprintf("line %d's amount (qty × price)", l.n), f.cents("ol_amount", where), l.cents)
	}
	stockAfter := f.stock()
	for k, want := range map[procStockKey]procStockRow{
		{1, 1}: {quantity: 50 - 3, ytd: 3, orders: 1, remote: 0},
		{1, 2}: {quantity: 12 - 5 + 91, ytd: 5, orders: 1, remote: 0}, // 7 would be left: +91
		{2, 1}: {quantity: 40 - 2, ytd: 2, orders: 1, remote: 1},
	} {
		b := stockBefore[k]
		want.ytd += b.ytd
		want.orders += b.orders
		want.remote += b.remote
		if got := stockAfter[k]; got != want {
			t.Errorf("stock %v after new-order: %+v, want %+v", k, got, want)
		}
	}

	// New-Order whose last item does not exist: rolled back, nothing changed.
	before := f.snapshot()
	err = p.newOrder(ctx, &newOrderIn{wID: 1, dID: 1, cID: 2, allLocal: true,
		lines: []orderLine{{3, 1, 1}, {unusedItem, 1, 1}}})
	if !errors.Is(err, errRolledBack) {
		t.Fatalf("new-order with an unused item: %v, want errRolledBack", err)
	}
	f.unlocked()
	if after := f.snapshot(); after != before {
		t.Fatalf("the rolled-back new-order changed the database:\nbefore %s\nafter  %s", before, after)
	}
	// Any other failure is returned as it is, classified by the session.
	err = p.newOrder(ctx, &newOrderIn{wID: 1, dID: 1, cID: 1, lines: []orderLine{{3, 9, 1}}}) // no stock in warehouse 9
	if err == nil || errors.Is(err, errRolledBack) {
		t.Fatalf("new-order from a warehouse with no stock: %v, want a failure", err)
	}
	f.unlocked()
	if after := f.snapshot(); after != before {
		t.Fatalf("the failed new-order changed the database:\nbefore %s\nafter  %s", before, after)
	}

	// Payment by last name: of the three ABLEs of district 1 (Alice 3, Bob 2,
	// Carl 4), the second by first name.
	f.payment(p, &paymentIn{wID: 1, dID: 1, cWID: 1, cDID: 1, cLast: "ABLE", amount: "123.45"}, 1, 2, 12345)
	// Of the two ESEs of district 2 (Xavier 2, Yan 1), the first; the
	// customer's district is not the one paid at.
	f.payment(p, &paymentIn{wID: 1, dID: 1, cWID: 1, cDID: 2, cLast: "ESE", amount: "5000.00"}, 2, 2, 500000)
	// By id.
	f.payment(p, &paymentIn{wID: 1, dID: 2, cWID: 1, cDID: 1, cID: 4, amount: "1.00"}, 1, 4, 100)
	f.eq("good credit keeps its c_data", "SELECT count(*) FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 4 AND c_data = 'good data'", 1)

	// A bad-credit customer's c_data gets the ids and amount at its left,
	// and stays 500 characters.
	f.payment(p, &paymentIn{wID: 1, dID: 2, cWID: 1, cDID: 1, cID: 1, amount: "12.00"}, 1, 1, 1200)
	prefix := "1 1 1 2 1 12.00 | "
	old := strings.Repeat("b", 500)
	f.eq("c_data of the BC customer", "SELECT count(*) FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1 AND c_data = '"+
		(prefix + old)[:500]+"'", 1)

	// Delivery: the oldest new order of each district (2 in district 1, 3 in
	// district 2); the eight districts without any are skipped.
	owed1 := f.centsOf("sum(ol_amount)", "FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2")
	owed2 := f.centsOf("sum(ol_amount)", "FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 3")
	bal1 := f.centsOf("c_balance", "FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 2")
	bal2 := f.centsOf("c_balance", "FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3")
	if owed1 != 300+2*1500 || owed2 != 700 {
		t.Fatalf("the data set's order lines: %d and %d cents", owed1, owed2)
	}
	if err := p.delivery(ctx, &deliveryIn{wID: 1, carrierID: 7}); err != nil {
		t.Fatalf("delivery: %v", err)
	}
	f.unlocked()
	f.eq("new orders left", "SELECT count(*) FROM new_order", 2)
	f.eq("new orders left in district 1", "SELECT min(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1", 3)
	f.eq("carriers", "SELECT count(*) FROM orders WHERE o_carrier_id = 7", 2)
	f.eq("carrier of order 2 in district 1", "SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2", 7)
	f.eq("carrier of order 3 in district 2", "SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 3", 7)
	f.eq("delivered lines", "SELECT count(*) FROM order_line WHERE ol_delivery_d IS NOT NULL", 4+3+1)
	f.eq("delivered lines of order 2 in district 1", "SELECT count(*) FROM order_line "+
		"WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2 AND ol_delivery_d IS NOT NULL", 3)
	f.eq("customer 2's balance", f.cents("c_balance", "FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 2"), bal1+owed1)
	f.eq("customer 3's balance in district 2", f.cents("c_balance", "FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3"), bal2+owed2)
	f.eq("deliveries", "SELECT sum(c_delivery_cnt) FROM customer", 2)
	f.eq("customer 2's deliveries", "SELECT c_delivery_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 2", 1)
	// A second Delivery takes the next ones (district 1 only has some).
	if err := p.delivery(ctx, &deliveryIn{wID: 1, carrierID: 8}); err != nil {
		t.Fatalf("second delivery: %v", err)
	}
	f.unlocked()
	f.eq("new orders left after two deliveries", "SELECT count(*) FROM new_order", 1)
	f.eq("and it is order 4 of district 1", "SELECT no_o_id FROM new_order WHERE no_w_id = 1 AND no_d_id = 1", 4)

	// Stock-Level: the distinct items of the district's last 20 orders below
	// the threshold, in warehouse 1's stock. District 1's orders hold items
	// 1–5 (stock 47, 98, 5, 30, 15); district 2's items 3–5.
	for _, c := range []struct {
		d, threshold, want int64
	}{{1, 20, 2}, {1, 50, 4}, {1, 100, 5}, {1, 5, 0}, {2, 20, 2}, {2, 31, 3}} {
		got, err := p.stockCount(ctx, &stockLevelIn{wID: 1, dID: c.d, threshold: c.threshold})
		if err != nil {
			t.Fatalf("stock-level: %v", err)
		}
		if got != c.want {
			t.Errorf("stock-level in district %d below %d: %d, want %d", c.d, c.threshold, got, c.want)
		}
	}
	if err := p.stockLevel(ctx, &stockLevelIn{wID: 1, dID: 1, threshold: 15}); err != nil {
		t.Fatal(err)
	}
	f.unlocked()

	// Order-Status: the lines of the customer's newest order.
	for _, c := range []struct {
		in   orderStatusIn
		want int
	}{
		{orderStatusIn{wID: 1, dID: 1, cID: 1}, 3},         // order 4, the New-Order above
		{orderStatusIn{wID: 1, dID: 1, cLast: "ABLE"}, 3},  // Bob: order 2
		{orderStatusIn{wID: 1, dID: 1, cID: 4}, 0},         // Carl has no order
		{orderStatusIn{wID: 1, dID: 2, cLast: "ESE"}, 1},   // Xavier: order 2 of district 2
		{orderStatusIn{wID: 1, dID: 2, cID: 3}, 1},         // order 3 of district 2
		{orderStatusIn{wID: 1, dID: 1, cLast: "PRI"}, 3},   // Zed alone: customer 1, order 4
		{orderStatusIn{wID: 1, dID: 2, cLast: "CALLY"}, 1}, // Carol alone: customer 3, order 3
	} {
		n, err := p.orderStatusLines(ctx, &c.in)
		if err != nil {
			t.Fatalf("order-status %+v: %v", c.in, err)
		}
		if n != c.want {
			t.Errorf("order-status %+v: %d lines, want %d", c.in, n, c.want)
		}
	}
	if err := p.orderStatus(ctx, &orderStatusIn{wID: 1, dID: 1, cID: 2}); err != nil {
		t.Fatal(err)
	}
	f.unlocked()
	if err := p.orderStatus(ctx, &orderStatusIn{wID: 1, dID: 1, cLast: "NOBODY"}); err == nil {
		t.Fatal("order-status for a last name nobody has: no error")
	}
	f.unlocked()

	// The session is still usable, and a New-Order after all this commits.
	if err := p.newOrder(ctx, &newOrderIn{wID: 1, dID: 2, cID: 1, allLocal: true, lines: []orderLine{{4, 1, 1}}}); err != nil {
		t.Fatal(err)
	}
	f.eq("district 2's new order", "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 4 AND o_all_local = 1", 1)
	f.unlocked()

	if concurrent {
		f.concurrent(url, opts)
	}
}

// concurrent runs the five transactions from several sessions at once on
// the few rows of the data set, the items of each New-Order in random order:
// every failure must be one the runner retries (deadlock, serialization,
// lock wait), no session may be left in a transaction, and the
// specification's consistency conditions that the data set meets must still
// hold. Then a deadlock on purpose: the New-Order that loses it returns the
// database's deadlock error, classified as such, and leaves nothing behind.
func (f *procFixture) concurrent(url string, opts driver.Options) {
	t, ctx := f.t, f.ctx
	money := func() int64 { // what payments move from balances to ytd, and deliveries add
		return f.centsOf("sum(c_balance + c_ytd_payment)", "FROM customer") -
			f.centsOf("coalesce(sum(ol_amount), 0)", "FROM order_line WHERE ol_delivery_d IS NOT NULL")
	}
	before := money()
	const workers, each = 6, 40
	errs := make(chan error, workers)
	failures := make(chan result.ErrorClass, workers*each)
	for w := range workers {
		c := testenv.Connect(t, url, opts).(driver.SQL)
		p, err := newProcTxns(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range each {
				var err error
				switch k := r.IntN(10); {
				case k < 4:
					in := &newOrderIn{wID: 1, dID: 1 + r.Int64N(2), cID: 1 + r.Int64N(3), allLocal: true}
					for _, i := range r.Perm(5)[:2+r.IntN(4)] {
						in.lines = append(in.lines, orderLine{int64(i + 1), 1, 1 + r.Int64N(10)})
					}
					if r.IntN(10) == 0 {
						in.lines[len(in.lines)-1].itemID = unusedItem
					}
					if err = p.newOrder(ctx, in); errors.Is(err, errRolledBack) {
						err = nil
					}
				case k < 7:
					in := &paymentIn{wID: 1, dID: 1 + r.Int64N(2), cWID: 1, cDID: 1, cID: 1 + r.Int64N(4), amount: "1.50"}
					if r.IntN(2) == 0 {
						in.cID, in.cLast = 0, "ABLE"
					}
					err = p.payment(ctx, in)
				case k < 8:
					err = p.delivery(ctx, &deliveryIn{wID: 1, carrierID: 1 + r.Int64N(10)})
				case k < 9:
					err = p.orderStatus(ctx, &orderStatusIn{wID: 1, dID: 1, cID: 1 + r.Int64N(4)})
				default:
					err = p.stockLevel(ctx, &stockLevelIn{wID: 1, dID: 1 + r.Int64N(2), threshold: 10 + r.Int64N(11)})
				}
				if err != nil {
					switch cl := c.Classify(err); cl {
					case result.ErrDeadlock, result.ErrSerialization, result.ErrBusy:
						failures <- cl
					default:
						errs <- fmt.Errorf("worker %d: %v (%s)", w, err, cl)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(failures)
	counts := map[result.ErrorClass]int{}
	for cl := range failures {
		counts[cl]++
	}
	t.Logf("%d transactions from %d sessions at once; retryable failures: %v", workers*each, workers, counts)
	f.unlocked()
	if after := money(); after != before {
		t.Errorf("balances + payments − delivered amounts: %d cents before, %d after", before, after)
	}
	for d := 1; d <= 2; d++ {
		where := fmt.Sprintf("w_id = 1 AND d_id = %d", d)
		o := strings.NewReplacer("w_id", "o_w_id", "d_id", "o_d_id").Replace(where)
		ol := strings.NewReplacer("w_id", "ol_w_id", "d_id", "ol_d_id").Replace(where)
		next, _ := f.other.QueryInt64(ctx, "SELECT d_next_o_id FROM district WHERE d_"+where)
		f.eq(fmt.Sprintf("district %d: max(o_id) = d_next_o_id − 1 (3.3.2.2)", d), "SELECT max(o_id) FROM orders WHERE "+o, next-1)
		lines, _ := f.other.QueryInt64(ctx, "SELECT count(*) FROM order_line WHERE "+ol)
		f.eq(fmt.Sprintf("district %d: sum(o_ol_cnt) = order lines (3.3.2.4)", d), "SELECT sum(o_ol_cnt) FROM orders WHERE "+o, lines)
	}
	undelivered, _ := f.other.QueryInt64(ctx, "SELECT count(*) FROM orders WHERE o_carrier_id IS NULL")
	f.eq("new orders = orders without a carrier (3.3.2.5)", "SELECT count(*) FROM new_order", undelivered)
	f.eq("lines delivered exactly when their order has a carrier (3.3.2.7)", "SELECT count(*) FROM orders JOIN order_line "+
		"ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id "+
		"WHERE (o_carrier_id IS NULL) <> (ol_delivery_d IS NULL)", 0)
	f.eq("w_ytd grew as the districts' d_ytd (3.3.2.1)", f.cents("w_ytd - 300000", "FROM warehouse"),
		f.centsOf("sum(d_ytd) - 60000", "FROM district"))
	f.eq("and as the history", f.cents("w_ytd - 300000", "FROM warehouse"), f.centsOf("sum(h_amount)", "FROM history"))

	// The other transaction holds stock row (1, 2) and asks for district 1
	// once the New-Order, holding district 1, waits for (1, 2). It has
	// written more (InnoDB rolls back the smaller transaction) and waits
	// last (PostgreSQL's waiter that reaches deadlock_timeout first fails).
	c := testenv.Connect(t, url, opts).(driver.SQL)
	p, err := newProcTxns(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	x := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	f.exec("CREATE TABLE fb_scratch (n int)")
	for _, q := range []string{"BEGIN", "INSERT INTO fb_scratch SELECT s_quantity FROM stock", "INSERT INTO fb_scratch SELECT n FROM fb_scratch",
		"INSERT INTO fb_scratch SELECT n FROM fb_scratch", "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 2 FOR UPDATE"} {
		if err := x.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before = f.snapshotOf()
	done := make(chan error, 1)
	go func() {
		done <- p.newOrder(ctx, &newOrderIn{wID: 1, dID: 1, cID: 1, allLocal: true, lines: []orderLine{{2, 1, 1}, {1, 1, 1}}})
	}()
	time.Sleep(300 * time.Millisecond)
	if err := x.Exec(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1 FOR UPDATE"); err != nil {
		t.Fatalf("the other transaction lost the deadlock: %v", err)
	}
	err = <-done
	if cl := c.Classify(err); cl != result.ErrDeadlock {
		t.Fatalf("new-order in a deadlock: %v (%s), want a deadlock", err, cl)
	}
	if err := x.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	f.unlocked()
	if after := f.snapshotOf(); after != before {
		t.Fatalf("the new-order that lost a deadlock changed the database:\nbefore %d\nafter  %d", before, after)
	}
}

// snapshotOf is snapshot as a number.
func (f *procFixture) snapshotOf() int64 {
	f.t.Helper()
	v, err := f.other.QueryInt64(f.ctx, "SELECT (SELECT sum(d_next_o_id) FROM district) + (SELECT count(*) FROM orders) + "+
		"(SELECT count(*) FROM order_line) + (SELECT sum(s_quantity) FROM stock)")
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// load creates the nine tables and fills them with: warehouse 1 with
// districts 1 and 2 (and stock for item 1 in a warehouse 2 that has no other
// row), items 1–5, four customers in district 1 (Zed PRI with bad credit and
// a full c_data, Bob, Alice and Carl ABLE) and three in district 2 (Yan and
// Xavier ESE, Carol CALLY), and three orders in each district.
func (f *procFixture) load() {
	d := f.c.Dialect()
	for _, table := range tables {
		f.exec(createTable(d, table))
	}
	f.insert("warehouse", "w_id", 1, "w_name", "'Ware1'", "w_tax", "0.1000", "w_ytd", "300000.00")
	for i := 1; i <= 2; i++ {
		f.insert("district", "d_id", i, "d_w_id", 1, "d_name", fmt.Sprintf("'Dist%d'", i), "d_tax", "0.0500",
			"d_ytd", "30000.00", "d_next_o_id", 4)
	}
	for i, price := range []string{"10.00", "2.50", "7.00", "1.50", "3.25"} {
		f.insert("item", "i_id", i+1, "i_im_id", i+1, "i_name", fmt.Sprintf("'item %d'", i+1), "i_price", price, "i_data", "'data'")
	}
	stock := func(w, i, q int) {
		kv := []any{"s_i_id", i, "s_w_id", w, "s_quantity", q, "s_ytd", 100, "s_order_cnt", 10, "s_remote_cnt", 1, "s_data", "'data'"}
		for dist := 1; dist <= 10; dist++ {
			kv = append(kv, fmt.Sprintf("s_dist_%02d", dist), fmt.Sprintf("'w%d i%d d%02d'", w, i, dist))
		}
		f.insert("stock", kv...)
	}
	for i, q := range []int{50, 12, 5, 30, 15} {
		stock(1, i+1, q)
	}
	stock(2, 1, 40)
	customer := func(dist, id int, first, last, credit, data string) {
		f.insert("customer", "c_id", id, "c_d_id", dist, "c_w_id", 1, "c_first", "'"+first+"'", "c_last", "'"+last+"'",
			"c_credit", "'"+credit+"'", "c_credit_lim", "50000.00", "c_discount", "0.1000", "c_balance", "-10.00",
			"c_ytd_payment", "10.00", "c_payment_cnt", 1, "c_data", "'"+data+"'")
	}
	customer(1, 1, "Zed", "PRI", "BC", strings.Repeat("b", 500))
	customer(1, 2, "Bob", "ABLE", "GC", "good data")
	customer(1, 3, "Alice", "ABLE", "GC", "good data")
	customer(1, 4, "Carl", "ABLE", "GC", "good data")
	customer(2, 1, "Yan", "ESE", "GC", "good data")
	customer(2, 2, "Xavier", "ESE", "GC", "good data")
	customer(2, 3, "Carol", "CALLY", "GC", "good data")
	// Orders 1–3 of each district; order 1 delivered, the others new
	// (district 1) or only order 3 new (district 2).
	order := func(dist, id, cust int, delivered bool, items ...int) {
		carrier := "NULL"
		deliveredAt := "NULL"
		if delivered {
			carrier, deliveredAt = "3", "'2024-01-02 00:00:00'"
		}
		f.insert("orders", "o_id", id, "o_d_id", dist, "o_w_id", 1, "o_c_id", cust, "o_carrier_id", carrier,
			"o_ol_cnt", len(items), "o_all_local", 1)
		if !delivered {
			f.insert("new_order", "no_o_id", id, "no_d_id", dist, "no_w_id", 1)
		}
		for n, item := range items {
			// 1.00 per unit of item id on line 1, 15.00 on the others.
			amount := "3.00"
			if n > 0 {
				amount = "15.00"
			}
			if dist == 2 {
				amount = "7.00"
			}
			f.insert("order_line", "ol_o_id", id, "ol_d_id", dist, "ol_w_id", 1, "ol_number", n+1, "ol_i_id", item,
				"ol_supply_w_id", 1, "ol_delivery_d", deliveredAt, "ol_quantity", 1, "ol_amount", amount,
				"ol_dist_info", fmt.Sprintf("'w1 i%d d%02d'", item, dist))
		}
	}
	order(1, 1, 1, true, 1, 3)
	order(1, 2, 2, false, 2, 4, 4)
	order(1, 3, 3, false, 5, 5)
	order(2, 1, 1, true, 4)
	order(2, 2, 2, true, 5)
	order(2, 3, 3, false, 3)
	for _, q := range afterLoad(d) {
		f.exec(q)
	}
}

// insert adds one row to table: the columns given as name, SQL literal
// pairs, every other column its type's zero (NULL where it may be NULL).
func (f *procFixture) insert(table string, kv ...any) {
	set := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		set[kv[i].(string)] = fmt.Sprint(kv[i+1])
	}
	var names, values []string
	for _, col := range columns[table] {
		name, typ, _ := strings.Cut(col, " ")
		v, ok := set[name]
		delete(set, name)
		switch {
		case ok:
		case strings.HasSuffix(typ, " null"):
			v = "NULL"
		case typ == "timestamp":
			v = "'2024-01-01 00:00:00'"
		case strings.HasPrefix(typ, "varchar"), strings.HasPrefix(typ, "char"):
			v = "'x'"
		default:
			v = "0"
		}
		names = append(names, name)
		values = append(values, v)
	}
	if len(set) > 0 {
		f.t.Fatalf("insert into %s: no columns %v", table, set)
	}
	f.exec("INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(values, ", ") + ")")
}

func (f *procFixture) exec(q string) {
	f.t.Helper()
	if err := f.other.Exec(f.ctx, q); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

// eq checks an integer the second session reads.
func (f *procFixture) eq(what, q string, want int64) {
	f.t.Helper()
	got, err := f.other.QueryInt64(f.ctx, q)
	if err != nil {
		f.t.Fatalf("%s: %s: %v", what, q, err)
	}
	if got != want {
		f.t.Errorf("%s: %d, want %d (%s)", what, got, want, q)
	}
}

// cents returns the query of a decimal expression in cents.
func (f *procFixture) cents(expr, from string) string {
	if f.c.Dialect() == "mysql" {
		return "SELECT CAST((" + expr + ") * 100 AS SIGNED) " + from
	}
	return "SELECT ((" + expr + ") * 100)::bigint " + from
}

func (f *procFixture) centsOf(expr, from string) int64 {
	f.t.Helper()
	v, err := f.other.QueryInt64(f.ctx, f.cents(expr, from))
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// unlocked checks that the transaction session holds no lock on the rows
// the transactions write, that is, that it left no transaction open.
func (f *procFixture) unlocked() {
	f.t.Helper()
	for _, table := range []string{"warehouse", "district", "customer", "stock", "orders", "new_order", "order_line"} {
		if err := f.other.Exec(f.ctx, "SELECT 1 FROM "+table+" FOR UPDATE NOWAIT"); err != nil {
			f.t.Fatalf("rows of %s are still locked (a transaction left open?): %v", table, err)
		}
	}
}

type procStockKey struct{ w, i int64 }

type procStockRow struct{ quantity, ytd, orders, remote int64 }

func (f *procFixture) stock() map[procStockKey]procStockRow {
	f.t.Helper()
	rows, err := f.other.Query(f.ctx, "SELECT s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock")
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	out := map[procStockKey]procStockRow{}
	for rows.Next() {
		var k procStockKey
		var r procStockRow
		if err := rows.Scan(&k.w, &k.i, &r.quantity, &r.ytd, &r.orders, &r.remote); err != nil {
			f.t.Fatal(err)
		}
		out[k] = r
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// snapshot describes what New-Order and Payment write.
func (f *procFixture) snapshot() string {
	f.t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT sum(d_next_o_id) FROM district", "SELECT count(*) FROM orders", "SELECT count(*) FROM new_order",
		"SELECT count(*) FROM order_line", "SELECT sum(s_quantity) FROM stock", "SELECT sum(s_ytd) FROM stock",
		"SELECT sum(s_order_cnt) FROM stock", "SELECT count(*) FROM history", f.cents("sum(c_balance)", "FROM customer"),
	} {
		v, err := f.other.QueryInt64(f.ctx, q)
		if err != nil {
			f.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d ", v)
	}
	return b.String()
}

// payment runs a Payment and checks that it paid customer (cDID, cID) the
// amount in cents: the warehouse's and district's year to date, the
// customer's balance, year to date and count, and the history row.
func (f *procFixture) payment(p *procTxns, in *paymentIn, cDID, cID, cents int64) {
	f.t.Helper()
	cust := fmt.Sprintf("FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", in.cWID, cDID, cID)
	dist := fmt.Sprintf("FROM district WHERE d_w_id = %d AND d_id = %d", in.wID, in.dID)
	wYTD, dYTD := f.centsOf("w_ytd", "FROM warehouse WHERE w_id = 1"), f.centsOf("d_ytd", dist)
	bal, ytd := f.centsOf("c_balance", cust), f.centsOf("c_ytd_payment", cust)
	cnt, _ := f.other.QueryInt64(f.ctx, "SELECT c_payment_cnt "+cust)
	hist, _ := f.other.QueryInt64(f.ctx, "SELECT count(*) FROM history")
	if err := p.payment(f.ctx, in); err != nil {
		f.t.Fatalf("payment %+v: %v", in, err)
	}
	f.unlocked()
	f.eq("w_ytd", f.cents("w_ytd", "FROM warehouse WHERE w_id = 1"), wYTD+cents)
	f.eq("d_ytd", f.cents("d_ytd", dist), dYTD+cents)
	f.eq("c_balance", f.cents("c_balance", cust), bal-cents)
	f.eq("c_ytd_payment", f.cents("c_ytd_payment", cust), ytd+cents)
	f.eq("c_payment_cnt", "SELECT c_payment_cnt "+cust, cnt+1)
	f.eq("history rows", "SELECT count(*) FROM history", hist+1)
	f.eq("the history row", fmt.Sprintf("SELECT count(*) FROM history WHERE h_c_id = %d AND h_c_d_id = %d AND h_c_w_id = %d "+
		"AND h_d_id = %d AND h_w_id = %d AND h_data = 'Ware1    Dist%d' AND h_amount * 100 = %d",
		cID, cDID, in.cWID, in.dID, in.wID, in.dID, cents), 1)
}
