package adapter

import (
	"strconv"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// The expected values were read off the go-tpc fixtures by hand.

func goTPCOp(t *testing.T, r *result.Run, name string) result.Op {
	t.Helper()
	for _, op := range r.Ops {
		if op.Name == name {
			return op
		}
	}
	t.Fatalf("no op %s in %v", name, r.Ops)
	return result.Op{}
}

func decodeHist(t *testing.T, op result.Op) *hdr.Histogram {
	t.Helper()
	h, err := hist.Decode(op.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestGoTPCPostgres(t *testing.T) {
	tool, runs := parseFile(t, "go-tpc/pg-w1-t4.txt")
	eq(t, "tool", tool.Name, "go-tpc")
	eq(t, "runs", len(runs), 1)
	r := runs[0]
	eq(t, "kind", r.Kind, "tpcc")
	eq(t, "source", r.Source, "go-tpc")
	// tpmC: 16151.7, tpmTotal: 36063.6, efficiency: 125596.6% → 1 warehouse
	eq(t, "warehouses", r.Params["warehouses"], any(int64(1)))
	if r.Summary.Metric == nil {
		t.Fatal("no headline metric")
	}
	eq(t, "headline", r.Summary.Metric.Name, tpccparams.Headline.Name)
	near(t, "NOPM (tpmC)", r.Summary.Metric.Value, 16151.7, 1e-9)
	// The longest Takes(s) is 30.0 (NEW_ORDER, ORDER_STATUS, PAYMENT).
	near(t, "duration", r.Duration.Seconds(), 30.0, 1e-9)
	near(t, "new orders", r.Summary.Extra[tpccparams.NewOrders], 16151.7*0.5, 1e-6)
	// The headline recomputed from the counter, as analysis does, is tpmC.
	near(t, "headline from the counter", tpccparams.Headline.Measure(r.Ops, r.Summary.Extra, r.Duration, nil, nil), 16151.7, 1e-6)
	near(t, "throughput", r.Summary.Throughput, 36063.6/60, 1e-9)
	// 717 + 8064 + 771 + 7774 + 679
	eq(t, "transactions", r.Summary.Transactions, int64(18005))
	eq(t, "failed", r.Summary.Failed, int64(0))
	// Sum(ms): 8846.9 + 62718.0 + 1215.0 + 40699.2 + 2434.1 over 18005
	near(t, "mean µs", r.Summary.LatencyMean, (8846.9+62718.0+1215.0+40699.2+2434.1)*1000/18005, 1e-6)
	// The slowest transaction: NEW_ORDER Max(ms): 79.7.
	near(t, "max", r.Summary.Max, 79700, 79.7)

	var names []string
	for _, op := range r.Ops {
		names = append(names, op.Name)
	}
	eq(t, "ops", strings.Join(names, ","), strings.Join(tpccparams.Ops, ","))
	// [Summary] NEW_ORDER - Takes(s): 30.0, Count: 8064, ... 50th(ms): 6.8, 90th(ms): 12.6,
	// 95th(ms): 15.7, 99th(ms): 24.1, 99.9th(ms): 46.1, Max(ms): 79.7
	no := goTPCOp(t, r, tpccparams.NewOrder)
	n, p50, mx := opHist(t, no)
	eq(t, "new_order count", n, int64(8064))
	near(t, "new_order p50", float64(p50), 6800, 6.8)
	near(t, "new_order max", float64(mx), 79700, 79.7)
	h := decodeHist(t, no)
	near(t, "new_order p99", float64(h.ValueAtQuantile(99)), 24100, 24.1)
	near(t, "new_order p95", float64(h.ValueAtQuantile(95)), 15700, 15.7)
	// [Summary] DELIVERY - Count: 717, 50th(ms): 11.0, Max(ms): 58.7
	n, p50, mx = opHist(t, goTPCOp(t, r, tpccparams.Delivery))
	eq(t, "delivery count", n, int64(717))
	near(t, "delivery p50", float64(p50), 11000, 11)
	near(t, "delivery max", float64(mx), 58700, 58.7)

	// Two [Current] blocks (10 s each): 271+3195+291+3022+250 and 271+2821+274+2845+243.
	eq(t, "series points", len(r.Series), 2)
	if len(r.Series) == 2 {
		eq(t, "t1", r.Series[0].Second, 10)
		eq(t, "ops1", r.Series[0].Ops, int64(7029))
		near(t, "rate1", r.Series[0].Rate, 7029/10.0, 1e-9)
		eq(t, "t2", r.Series[1].Second, 20)
		eq(t, "ops2", r.Series[1].Ops, int64(6454))
	}
	if len(r.Deviations) < 2 || !strings.Contains(r.Deviations[0], "not NOPM read from the districts") ||
		!strings.Contains(r.Deviations[1], "one significant digit") {
		t.Errorf("deviations: %q", r.Deviations)
	}
}

func TestGoTPCPostgres16Threads(t *testing.T) {
	r := one(t, "go-tpc/pg-w1-t16.txt")
	// tpmC: 18026.2, tpmTotal: 40006.9; NEW_ORDER Count: 8969, Takes(s): 29.9
	near(t, "NOPM", r.Summary.Metric.Value, 18026.2, 1e-9)
	near(t, "duration", r.Duration.Seconds(), 29.9, 1e-9)
	near(t, "throughput", r.Summary.Throughput, 40006.9/60, 1e-9)
	n, _, mx := opHist(t, goTPCOp(t, r, tpccparams.NewOrder))
	eq(t, "new_order count", n, int64(8969))
	near(t, "new_order max", float64(mx), 436200, 436.2)
	// PAYMENT 99th(ms): 125.8
	h := decodeHist(t, goTPCOp(t, r, tpccparams.Payment))
	near(t, "payment p99", float64(h.ValueAtQuantile(99)), 125800, 125.8)
}

// Outputs of prepare and check hold no run: detected as go-tpc and refused.
func TestGoTPCPrepareRefused(t *testing.T) {
	text := readFixture(t, "go-tpc/refused/pg-w1-prepare.txt")
	tool, _, err := parse("prepare.txt", text)
	if tool == nil || tool.Name != "go-tpc" || err == nil || !strings.Contains(err.Error(), "prepare, check or cleanup output") {
		t.Fatalf("tool %v err %v", tool, err)
	}
	if err := checkGoTPCPrepare(text, 1); err != nil {
		t.Errorf("the real prepare output fails its check: %v", err)
	}
	if err := checkGoTPCPrepare(text, 2); err == nil || !strings.Contains(err.Error(), "warehouse 2 of 2") {
		t.Errorf("a prepare of 1 warehouse passes as 2: %v", err)
	}
	failed := strings.Replace(text, "Finished\n", "check prepare failed, err district 3 d_next_o_id mismatch\nFinished\n", 1)
	if err := checkGoTPCPrepare(failed, 1); err == nil || !strings.Contains(err.Error(), "check prepare failed") {
		t.Errorf("a failed check passes: %v", err)
	}
	cut := text[:strings.Index(text, "load to stock in warehouse 1")]
	if err := checkGoTPCPrepare(cut, 1); err == nil {
		t.Error("a prepare cut before the stock of warehouse 1 passes")
	}
}

func TestGoTPCRefusesDamage(t *testing.T) {
	text := readFixture(t, "go-tpc/pg-w1-t4.txt")
	ls := strings.SplitAfter(text, "\n")
	cut := func(n int) string { return strings.Join(ls[:n], "") }
	// Line 12 is "Finished", 13–17 the [Summary] lines, 18 the tpmC line.
	eq(t, "line 12", strings.TrimSpace(ls[11]), "Finished")
	cases := []rejectCase{
		{"cut-before-finished.txt", cut(11), "cut-before-finished.txt:11: no \"Finished\" line"},
		{"cut-in-summary.txt", cut(15), "cut-in-summary.txt:15: no tpmC line"},
		{"cut-mid-line.txt", cut(17) + ls[17][:20], "cut-mid-line.txt:18:"},
		{"concatenated.txt", text + text, "concatenated.txt:20: a [Current] line after \"Finished\": a second go-tpc output"},
		{"count.txt", strings.Replace(text, "Count: 8064,", "Count: 8064x,", 1), "count.txt:14: NEW_ORDER count"},
		{"negative.txt", strings.Replace(text, "Max(ms): 79.7", "Max(ms): -79.7", 1), "negative.txt:14: NEW_ORDER Max(ms)"},
		{"order.txt", strings.Replace(text, "99th(ms): 24.1, 99.9th(ms): 46.1", "99th(ms): 94.1, 99.9th(ms): 46.1", 1), "order.txt:14: NEW_ORDER: 99.9th(ms) 46.1 is below 99th(ms) 94.1"},
		{"unknown.txt", strings.Replace(text, "[Summary] DELIVERY ", "[Summary] DELIVERIES ", 1), "unknown.txt:13: unknown go-tpc transaction \"DELIVERIES\""},
		{"tpmc.txt", strings.Replace(text, "tpmC: 16151.7,", "tpmC: 1e99,", 1), "tpmc.txt:18: tpmC"},
		{"total.txt", strings.Replace(text, "tpmTotal: 36063.6", "tpmTotal: 36.6", 1), "total.txt:18: tpmTotal 36.6 is below tpmC"},
		{"junk.txt", strings.Replace(text, "Finished\n", "Finished\nsomething else\n", 1), "junk.txt:13: unexpected line in go-tpc output"},
		{"no-new-order.txt", strings.Replace(text, "[Summary] NEW_ORDER - ", "[Summary] STOCK_LEVEL - ", 1), "no-new-order.txt:17: a second STOCK_LEVEL line"},
	}
	expectRejected(t, cases)
}

// Failed transactions are the errors of their op type; go-tpc's
// "execute run failed" lines are named in a deviation.
func TestGoTPCErrors(t *testing.T) {
	text := readFixture(t, "go-tpc/pg-w1-t4.txt")
	errRow := "[Summary] NEW_ORDER_ERR - Takes(s): 30.0, Count: 12, TPM: 24.0, Sum(ms): 120.0, Avg(ms): 10.0, 50th(ms): 9.4, 90th(ms): 12.6, 95th(ms): 12.6, 99th(ms): 14.7, 99.9th(ms): 14.7, Max(ms): 14.7\n"
	text = strings.Replace(text, "[Summary] ORDER_STATUS", errRow+"[Summary] ORDER_STATUS", 1)
	text = strings.Replace(text, "Finished\n", "[2026-11-25 17:43:00] execute run failed, err pq: deadlock detected\nFinished\n", 1)
	_, runs, err := parse("errors.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	no := goTPCOp(t, r, tpccparams.NewOrder)
	eq(t, "new_order errors", no.Errors[result.ErrOther], int64(12))
	eq(t, "new_order count", no.Count, int64(8064))
	eq(t, "failed", r.Summary.Failed, int64(12))
	if !strings.Contains(strings.Join(r.Deviations, "\n"), "1 \"execute run failed\" lines (the first: pq: deadlock detected)") {
		t.Errorf("deviations: %q", r.Deviations)
	}
}

func TestGoTPCWarehousesFromEfficiency(t *testing.T) {
	for _, c := range []struct {
		tpmC, eff string
		want      int64
		ok        bool
	}{
		{"16151.7", "125596.6", 1, true},
		{"18026.2", "140172.8", 1, true},
		// 4 warehouses: 100 × 30000 / (12.86 × 4) = 58320.4
		{"30000.0", "58320.4", 4, true},
		// 100 warehouses at 5000 tpmC: 388.8 % (99: 392.7, 101: 384.9)
		{"5000.0", "388.8", 100, true},
		// 1000 warehouses: 38.88 → 38.9, but 999 prints 38.9 as well (38.92)
		{"5000.0", "38.9", 0, false},
		// far too small an efficiency to tell 100 000 from its neighbours
		{"1000.0", "0.1", 0, false},
	} {
		tpmC, err := strconv.ParseFloat(c.tpmC, 64)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := goTPCWarehouses(tpmC, c.eff)
		if ok != c.ok || w != c.want && c.ok {
			t.Errorf("tpmC %s efficiency %s: %d %v, want %d %v", c.tpmC, c.eff, w, ok, c.want, c.ok)
		}
	}
}

func TestGoTPCMariaDB(t *testing.T) {
	r := one(t, "go-tpc/my-w1-t4.txt")
	// tpmC: 5625.9, tpmTotal: 12644.6, efficiency: 43747.4%
	near(t, "NOPM", r.Summary.Metric.Value, 5625.9, 1e-9)
	near(t, "throughput", r.Summary.Throughput, 12644.6/60, 1e-9)
	eq(t, "warehouses", r.Params["warehouses"], any(int64(1)))
	// 219 + 2808 + 270 + 2743 + 270; PAYMENT's Takes(s) 30.0 is the longest
	eq(t, "transactions", r.Summary.Transactions, int64(6310))
	near(t, "duration", r.Duration.Seconds(), 30.0, 1e-9)
	// NEW_ORDER 99th(ms): 109.1, Max(ms): 285.2
	h := decodeHist(t, goTPCOp(t, r, tpccparams.NewOrder))
	near(t, "new_order p99", float64(h.ValueAtQuantile(99)), 109100, 109.1)
	near(t, "new_order max", float64(h.Max()), 285200, 285.2)

	r = one(t, "go-tpc/my-w1-t16.txt")
	near(t, "NOPM at 16 threads", r.Summary.Metric.Value, 5026.0, 1e-9)
	eq(t, "new_order count", goTPCOp(t, r, tpccparams.NewOrder).Count, int64(2514))
}

// The --no-check prepare of 4 warehouses on MariaDB passes the load's check;
// asking it for 5 does not.
func TestGoTPCPrepareNoCheck(t *testing.T) {
	text := readFixture(t, "go-tpc/refused/my-w4-prepare-nocheck.txt")
	if err := checkGoTPCPrepare(text, 4); err != nil {
		t.Errorf("4 warehouses: %v", err)
	}
	if err := checkGoTPCPrepare(text, 5); err == nil || !strings.Contains(err.Error(), "warehouse 5 of 5") {
		t.Errorf("5 warehouses: %v", err)
	}
	if _, _, err := parse("prepare.txt", text); err == nil || !strings.Contains(err.Error(), "no measured run") {
		t.Errorf("a prepare parsed as a run: %v", err)
	}
}

// go-tpc prints Takes(s) with one decimal, so a last [Current] interval that
// ends within 0.05 s of the one before reads 0.0 (seen in CI on a loaded
// machine: "STOCK_LEVEL - Takes(s): 0.0, Count: 2"). Its transactions join
// the interval before; a summary of 0.0 s is still refused.
func TestGoTPCZeroLengthLastInterval(t *testing.T) {
	text := readFixture(t, "go-tpc/pg-w1-t4.txt")
	base, err := parseGoTPC("x.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	zero := "[Current] STOCK_LEVEL - Takes(s): 0.0, Count: 2, TPM: 0.0, Sum(ms): 6.0, Avg(ms): 3.0, 50th(ms): 3.0, 90th(ms): 3.0, 95th(ms): 3.0, 99th(ms): 3.0, 99.9th(ms): 3.0, Max(ms): 3.0\n"
	runs, err := parseGoTPC("zero.txt", strings.Replace(text, "Finished\n", zero+"Finished\n", 1))
	if err != nil {
		t.Fatalf("a zero-length last interval: %v", err)
	}
	got, want := runs[0].Series, base[0].Series
	eq(t, "seconds", len(got), len(want))
	eq(t, "last second's ops", got[len(got)-1].Ops, want[len(want)-1].Ops+2)
	bad := strings.Replace(text, "[Summary] STOCK_LEVEL - Takes(s): 29.9,", "[Summary] STOCK_LEVEL - Takes(s): 0.0,", 1)
	if bad == text {
		t.Fatal("the fixture's STOCK_LEVEL summary changed")
	}
	if _, err := parseGoTPC("bad.txt", bad); err == nil || !strings.Contains(err.Error(), "STOCK_LEVEL: 679 transactions in 0 s") {
		t.Errorf("a summary of 0 s: %v", err)
	}
}
