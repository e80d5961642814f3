package ssb

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCountsFormulas(t *testing.T) {
	for _, c := range []struct {
		sf   float64
		want Counts
	}{
		{0.01, Counts{Customer: 300, Supplier: 20, Part: 2000, Date: 2556, Orders: 15000}},
		{1, Counts{Customer: 30000, Supplier: 2000, Part: 200000, Date: 2556, Orders: 1500000}},
		{2, Counts{Customer: 60000, Supplier: 4000, Part: 400000, Date: 2556, Orders: 3000000}},
		{10, Counts{Customer: 300000, Supplier: 20000, Part: 800000, Date: 2556, Orders: 15000000}},
		{100, Counts{Customer: 3000000, Supplier: 200000, Part: 1400000, Date: 2556, Orders: 150000000}},
	} {
		if got := countsFor(c.sf); got != c.want {
			t.Errorf("SF %v: %+v, want %+v", c.sf, got, c.want)
		}
	}
}

func count(src interface{ Next() bool }) int64 {
	var n int64
	for src.Next() {
		n++
	}
	return n
}

func TestRowCounts(t *testing.T) {
	g := New(0.01, 1)
	c := g.Counts()
	for table, want := range map[string]int64{Customer: c.Customer, supplier: c.Supplier, Part: c.Part, Date: dateRows} {
		if got := count(g.All(table)); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	// 1–7 lines per order, 4 on average.
	lines := count(g.All(Lineorder))
	if lines < c.Orders*35/10 || lines > c.Orders*45/10 {
		t.Errorf("lineorder: %d rows for %d orders", lines, c.Orders)
	}
	orders := map[int64]bool{}
	for src := g.All(Lineorder); src.Next(); {
		orders[src.Values()[0].(int64)] = true
	}
	if int64(len(orders)) != c.Orders {
		t.Errorf("%d distinct order keys, want %d", len(orders), c.Orders)
	}
	if got := count(g.FlatRows(Chunk{1, c.Orders})); got != lines {
		t.Errorf("lineorder_flat: %d rows, lineorder %d", got, lines)
	}
}

func TestDomains(t *testing.T) {
	g := New(0.01, 7)
	c := g.Counts()
	in := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	nationRegion := map[string]string{}
	for _, n := range nations {
		nationRegion[n.Name] = regions[n.Region]
	}
	checkPlace := func(table string, key int64, city, nation, region, phone string) {
		t.Helper()
		if nationRegion[nation] != region {
			t.Fatalf("%s %d: nation %q in region %q", table, key, nation, region)
		}
		if len(city) != 10 || city[:9] != fmt.Sprintf("%-9.9s", nation) || city[9] < '0' || city[9] > '9' {
			t.Fatalf("%s %d: city %q for nation %q", table, key, city, nation)
		}
		if len(phone) != 15 {
			t.Fatalf("%s %d: phone %q", table, key, phone)
		}
	}
	for src := g.All(Customer); src.Next(); {
		v := src.Values()
		checkPlace("customer", v[0].(int64), v[3].(string), v[4].(string), v[5].(string), v[6].(string))
		if !in(mktSegments, v[7].(string)) {
			t.Fatalf("customer %v: segment %q", v[0], v[7])
		}
	}
	for src := g.All(supplier); src.Next(); {
		v := src.Values()
		checkPlace("supplier", v[0].(int64), v[3].(string), v[4].(string), v[5].(string), v[6].(string))
	}
	if city("UNITED KINGDOM", 1) != "UNITED KI1" || city("PERU", 3) != "PERU     3" {
		t.Fatalf("City: %q %q", city("UNITED KINGDOM", 1), city("PERU", 3))
	}
	brands := map[string]bool{}
	for src := g.All(Part); src.Next(); {
		v := src.Values()
		mfgr, cat, brand := v[2].(string), v[3].(string), v[4].(string)
		if len(mfgr) != 6 || mfgr[:5] != "MFGR#" || mfgr[5] < '1' || mfgr[5] > '5' ||
			len(cat) != 7 || !strings.HasPrefix(cat, mfgr) || cat[6] < '1' || cat[6] > '5' ||
			len(brand) != 9 || !strings.HasPrefix(brand, cat) || brand[7:] < "01" || brand[7:] > "40" {
			t.Fatalf("part %v: %q %q %q", v[0], mfgr, cat, brand)
		}
		brands[brand] = true
		if !in(colors, v[5].(string)) || strings.Contains(v[1].(string), v[5].(string)+" ") ||
			!in(partTypes, v[6].(string)) || !in(containers, v[8].(string)) {
			t.Fatalf("part %v: %v", v[0], v)
		}
		if s := v[7].(int64); s < 1 || s > 50 {
			t.Fatalf("part %v: size %d", v[0], s)
		}
	}
	if len(brands) < 800 { // 1 000 brands: 2 000 draws hit about 865
		t.Errorf("%d distinct brands among 2000 parts", len(brands))
	}
	dates := map[int64]bool{}
	var last int64
	for src := g.All(Date); src.Next(); {
		v := src.Values()
		k := v[0].(int64)
		dates[k] = true
		if k <= last || v[4].(int64) != k/10000 || v[5].(int64) != k/100 {
			t.Fatalf("date %d after %d: %v", k, last, v)
		}
		last = k
	}
	if first := dateKey(dateOf(1)); first != 19920101 || last != 19981230 || len(dates) != dateRows {
		t.Fatalf("dates %d … %d, %d of them", first, last, len(dates))
	}
	var order int64 = -1
	var total, sum int64
	checkTotal := func() {
		t.Helper()
		if order >= 0 && total != sum {
			t.Fatalf("order %d: lo_ordtotalprice %d, lines sum to %d", order, total, sum)
		}
	}
	for src := g.All(Lineorder); src.Next(); {
		v := src.Values()
		i := func(n int) int64 { return v[n].(int64) }
		if i(0) != order {
			checkTotal()
			order, total, sum = i(0), i(10), 0
		}
		qty, disc, tax, ext := i(8), i(11), i(14), i(9)
		sum += ext * (100 - disc) / 100 * (100 + tax) / 100
		switch {
		case i(1) < 1 || i(1) > 7:
			t.Fatalf("line %v", v)
		case i(2) < 1 || i(2) > c.Customer || i(2)%3 == 0:
			t.Fatalf("custkey %d", i(2))
		case i(3) < 1 || i(3) > c.Part, i(4) < 1 || i(4) > c.Supplier:
			t.Fatalf("keys %v", v)
		case qty < 1 || qty > 50, disc < 0 || disc > 10, tax < 0 || tax > 8:
			t.Fatalf("quantity/discount/tax %v", v)
		case ext != retailPrice(i(3))*qty, i(12) != ext*(100-disc)/100, i(13) != 6*retailPrice(i(3))/10:
			t.Fatalf("money %v", v)
		case !dates[i(5)] || !dates[i(15)] || i(15) <= i(5) || i(5) > 19980802:
			t.Fatalf("dates %v", v)
		case !in(orderPriorities, v[6].(string)) || !in(shipModes, v[16].(string)) || i(7) != 0:
			t.Fatalf("strings %v", v)
		}
	}
	checkTotal()
}

// digest generates table with the given number of workers, each making its
// chunks on its own, and hashes the rows in key order.
func digest(g *Generator, table string, workers int) string {
	chunks := g.Chunks(table, workers*3)
	outs := make([]strings.Builder, len(chunks))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var src interface {
					Next() bool
					Values() []any
				}
				if table == Flat {
					src = g.FlatRows(chunks[i])
				} else {
					src = g.Rows(table, chunks[i])
				}
				for src.Next() {
					fmt.Fprintln(&outs[i], src.Values()...)
				}
			}
		}()
	}
	for i := range chunks {
		next <- i
	}
	close(next)
	wg.Wait()
	h := sha256.New()
	for i := range outs {
		h.Write([]byte(outs[i].String()))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestWorkersSameRows(t *testing.T) {
	for _, table := range append(append([]string(nil), Tables...), Flat) {
		var first string
		for _, w := range []int{1, 2, 4} {
			d := digest(New(0.01, 42), table, w)
			if w == 1 {
				first = d
			} else if d != first {
				t.Errorf("%s: %d workers give %s, 1 worker %s", table, w, d, first)
			}
		}
	}
	if digest(New(0.01, 42), Lineorder, 1) == digest(New(0.01, 43), Lineorder, 1) {
		t.Error("seeds 42 and 43 give the same lineorder")
	}
}

func TestStatementsEveryDialect(t *testing.T) {
	if len(Queries) != 13 || Queries[0].Name != "Q1.1" || Queries[12].Name != "Q4.3" {
		t.Fatalf("queries %v", Queries)
	}
	for _, d := range Dialects {
		for _, table := range append(append([]string(nil), Tables...), Flat) {
			ddl, err := CreateTable(d, table)
			if err != nil || !strings.HasPrefix(ddl, "CREATE TABLE "+table+" (") {
				t.Errorf("%s %s: %q %v", d, table, ddl, err)
			}
			if strings.Contains(ddl, "LowCardinality") != (d == ClickHouse) {
				t.Errorf("%s %s: %s", d, table, ddl)
			}
		}
		if (FlatFromJoin(d) == "") != (d == ClickHouse18) {
			t.Errorf("%s: flat by join %q", d, FlatFromJoin(d))
		}
		for _, q := range Queries {
			if q.Flat[d] == "" || strings.Contains(q.Flat[d], "{") || (q.Join[d] == "") != (d == ClickHouse18) {
				t.Errorf("%s %s: join %q flat %q", d, q.Name, q.Join[d], q.Flat[d])
			}
			if q.Name != "Q1.3" && strings.Contains(q.Flat[d], "intDiv") != (d == ClickHouse || d == ClickHouse18) {
				t.Errorf("%s %s: %s", d, q.Name, q.Flat[d])
			}
		}
	}
	if _, err := CreateTable("oracle", Part); err == nil {
		t.Error("unknown dialect accepted")
	}
}

func BenchmarkLineorder(b *testing.B) {
	g := New(1, 1)
	b.ReportAllocs()
	n := 0
	src := g.All(Lineorder)
	for b.Loop() {
		if !src.Next() {
			src = g.All(Lineorder)
			src.Next()
		}
		n++
	}
}

// TestRowsAreStable pins the generator's rows: they are part of what a
// result measured, so runs of two fairbench versions compare only if both
// generate the same data. A change that alters them must be deliberate:
// update the digests and say so in the change.
func TestRowsAreStable(t *testing.T) {
	want := map[string]string{
		Date:      "e52aa17a722954f71072327331f271b27bb3434419b84f656385e166cd27762f",
		Customer:  "8f991b37b39c237701b10523492f57475c425f366de4cecb886f5631a5983259",
		supplier:  "1c86e50008716204d64a062a839837c27d2fcb1fcc1baf6627ece7420904ded9",
		Part:      "01c51944e1f7d6bebda9e36336e1168678fb0d20053d3e9f2d6f56854c5c0daa",
		Lineorder: "bf6690a6cf2b067b7b2f2a167dc09a99c7d523835d9cd00e5141f56d03ecd819",
		Flat:      "847a062585654758970a290a055950ea4c9741e4fd7060d21feab05fa375f965",
	}
	g := New(0.02, 7)
	for table, sum := range want {
		if got := digest(g, table, 2); got != sum {
			t.Errorf("%s: the rows changed (digest %s)", table, got)
		}
	}
}
