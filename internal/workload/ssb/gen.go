package ssb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// Differences from ssb-dbgen, each deliberate:
//   - Random streams: every row (every order, for lineorder) draws from its own
//     PCG seeded by (seed, table, key), so any chunk of keys can be made by any
//     worker with the same result; dbgen's per-column streams are not copied.
//   - Scale factors: dbgen truncates an SF ≥ 1 to an integer (-s 2.5 is SF 2);
//     here every count is floor(base×SF), so fractional SFs scale as written.
//     Below SF 1 the two agree (dbgen multiplies each base by SF).
//   - lo_partkey: dbgen draws it from 1…200 000×(floor(ln SF)+1) while the part
//     table has 200 000×floor(1+log2 SF) rows, so above SF 1 part of the part
//     table is never ordered; here lo_partkey covers the whole part table.
//   - The date table: dbgen scales its base below SF 1 as well (25 rows at SF
//     0.01, while orders still span 1992…1998); here it always has its 2 556
//     rows, 1992-01-01 … 1998-12-30 (2 556 days: dbgen's count stops one day
//     short of 1998-12-31).
//   - Date names: dbgen's month_names spell "Augest" and "Octorber", and its
//     d_daynuminweek ((tm_wday+1)%7+1) makes Saturday day 1 while its
//     d_dayofweek names that day "Sunday"; here the names are correct English,
//     Sunday is day 1 (as dbgen's comment intends) and d_lastdayinmonthfl is
//     1 on the last day of the month (dbgen's is inverted).
//   - p_brand1 is the category and a two-digit brand number (MFGR#2201…
//     MFGR#2240), as SSB's specification and qgen's parameters (MFGR#2221,
//     MFGR#2239) read it; the mirror's sprintf("%s%d") would print MFGR#221.
//   - Dates in lineorder and d_datekey are dbgen's integer yyyymmdd keys in
//     every dialect (see schema.go).

// Table names, as SSB and the ClickHouse documentation spell them.
const (
	Customer  = "customer"
	supplier  = "supplier"
	Part      = "part"
	Date      = "date"
	Lineorder = "lineorder"
	Flat      = "lineorder_flat"
)

// Tables lists the generated tables in load order (dimensions first).
var Tables = []string{Date, Customer, supplier, Part, Lineorder}

// dateRows is the date table's fixed size (dbgen's base 2556).
const dateRows = 2556

var dateStart = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)

// Counts are the row counts of the tables at a scale factor; Orders counts
// orders, each of 1–7 lineorder rows.
type Counts struct {
	Customer, Supplier, Part, Date, Orders int64
}

// countsFor returns dbgen's row counts at sf (see Differences for SF ≥ 1).
func countsFor(sf float64) Counts {
	scaled := func(base float64) int64 {
		n := int64(base * sf)
		if n < 1 {
			n = 1
		}
		return n
	}
	c := Counts{
		Customer: scaled(30000),
		Supplier: scaled(2000),
		Date:     dateRows,
		Orders:   scaled(1500000),
		Part:     scaled(200000),
	}
	// dbgen grows the part table with the logarithm of SF, not SF itself;
	// below SF 1 its scale is 1 and the base itself is scaled.
	if sf >= 1 {
		c.Part = 200000 * int64(math.Floor(1+math.Log2(sf)))
	}
	return c
}

// Columns returns the column names of a table in the order Values yields them.
func Columns(table string) []string {
	switch table {
	case Customer:
		return []string{"c_custkey", "c_name", "c_address", "c_city", "c_nation", "c_region", "c_phone", "c_mktsegment"}
	case supplier:
		return []string{"s_suppkey", "s_name", "s_address", "s_city", "s_nation", "s_region", "s_phone"}
	case Part:
		return []string{"p_partkey", "p_name", "p_mfgr", "p_category", "p_brand1", "p_color", "p_type", "p_size", "p_container"}
	case Date:
		return []string{"d_datekey", "d_date", "d_dayofweek", "d_month", "d_year", "d_yearmonthnum", "d_yearmonth",
			"d_daynuminweek", "d_daynuminmonth", "d_daynuminyear", "d_monthnuminyear", "d_weeknuminyear",
			"d_sellingseason", "d_lastdayinweekfl", "d_lastdayinmonthfl", "d_holidayfl", "d_weekdayfl"}
	case Lineorder:
		return []string{"lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey", "lo_orderdate",
			"lo_orderpriority", "lo_shippriority", "lo_quantity", "lo_extendedprice", "lo_ordtotalprice",
			"lo_discount", "lo_revenue", "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode"}
	}
	return nil
}

// Generator makes the rows of SSB's tables at one scale factor from one seed.
type Generator struct {
	SF     float64
	Seed   uint64
	counts Counts
}

// New returns a generator; equal sf and seed give equal rows.
func New(sf float64, seed uint64) *Generator {
	return &Generator{SF: sf, Seed: seed, counts: countsFor(sf)}
}

// Counts returns the generator's row counts.
func (g *Generator) Counts() Counts { return g.counts }

// Keys returns the number of keys of a table: rows, except for lineorder and
// lineorder_flat, whose keys are orders (order indexes 1…Orders, each with
// 1–7 lines).
func (g *Generator) Keys(table string) int64 {
	switch table {
	case Customer:
		return g.counts.Customer
	case supplier:
		return g.counts.Supplier
	case Part:
		return g.counts.Part
	case Date:
		return g.counts.Date
	case Lineorder, Flat:
		return g.counts.Orders
	}
	return 0
}

// Chunk is a range of keys [Lo, Hi], 1-based and inclusive.
type Chunk struct{ Lo, Hi int64 }

// Chunks splits a table's keys into n ranges of nearly equal size (fewer when
// the table has fewer keys than n).
func (g *Generator) Chunks(table string, n int) []Chunk {
	keys := g.Keys(table)
	if n < 1 {
		n = 1
	}
	if int64(n) > keys {
		n = int(keys)
	}
	out := make([]Chunk, 0, n)
	for i := range int64(n) {
		lo := keys*i/int64(n) + 1
		hi := keys * (i + 1) / int64(n)
		out = append(out, Chunk{lo, hi})
	}
	return out
}

// Rows returns the rows of table for the keys of chunk c; every chunk can be
// generated on its own, in any order, by any goroutine. The slice Values
// returns is reused from row to row.
func (g *Generator) Rows(table string, c Chunk) driver.RowSource {
	tid := map[string]uint64{Customer: 1, supplier: 2, Part: 3, Date: 4, Lineorder: 5}[table]
	if tid == 0 {
		panic("ssb: unknown table " + table)
	}
	if c.Hi > g.Keys(table) {
		c.Hi = g.Keys(table)
	}
	r := &rows{g: g, table: table, tid: tid, next: c.Lo, hi: c.Hi, pcg: rand.NewPCG(0, 0)}
	r.rnd = rand.New(r.pcg)
	r.row = driver.NewTypedRow(kindsOf(schemas[table]))
	return r
}

// All returns every row of a table as one source.
func (g *Generator) All(table string) driver.RowSource {
	return g.Rows(table, Chunk{1, g.Keys(table)})
}

type rows struct {
	g     *Generator
	table string
	tid   uint64
	next  int64 // next key to start
	hi    int64
	pcg   *rand.PCG
	rnd   *rand.Rand
	row   *driver.TypedRow // the current row
	// lineorder: the current order's lines, yielded one by one
	lines []*driver.TypedRow
	li    int
}

func (r *rows) Next() bool {
	if r.table == Lineorder {
		if r.li+1 < len(r.lines) {
			r.li++
			r.row = r.lines[r.li]
			return true
		}
		if r.next > r.hi {
			return false
		}
		r.seed(r.next)
		r.order(r.next)
		r.next++
		r.li = 0
		r.row = r.lines[0]
		return true
	}
	if r.next > r.hi {
		return false
	}
	k := r.next
	r.next++
	r.seed(k)
	switch r.table {
	case Customer:
		r.customer(k)
	case supplier:
		r.supplier(k)
	case Part:
		r.part(k)
	case Date:
		r.date(k)
	}
	return true
}

func (r *rows) Values() []any { return r.row.Values() }

func (r *rows) Kinds() []driver.Kind { return r.row.Kinds() }

func (r *rows) Typed() ([]int64, []string) { return r.row.Typed() }

// seed gives each key its own stream, so a row does not depend on which
// rows were generated before it.
func (r *rows) seed(k int64) {
	r.pcg.Seed(r.g.Seed^(r.tid<<56), uint64(k)*0x9E3779B97F4A7C15+r.tid)
}

// between draws uniformly from [lo, hi], as dbgen's RANDOM(v, lo, hi, sd).
func (r *rows) between(lo, hi int64) int64 { return lo + r.rnd.Int64N(hi-lo+1) }

func (r *rows) pick(list []string) string { return list[r.rnd.IntN(len(list))] }

// alphaNum is dbgen's V_STR alphabet.
const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// address is a random string of 10–40 characters: dbgen's V_STR around an
// average length of 25 (from 0.4× to 1.6×).
func (r *rows) address() string {
	n := r.between(10, 40)
	var b strings.Builder
	b.Grow(int(n))
	for range n {
		b.WriteByte(alphaNum[r.rnd.IntN(len(alphaNum))])
	}
	return b.String()
}

// phone prefixes the nation's index plus 10, as dbgen's gen_phone. The
// generator makes millions of these: built by hand, not by fmt.
func (r *rows) phone(nation int) string {
	a, b, c := r.between(100, 999), r.between(100, 999), r.between(1000, 9999)
	buf := make([]byte, 0, 15)
	buf = strconv.AppendInt(buf, int64(10+nation), 10)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, a, 10)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, b, 10)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, c, 10)
	return string(buf)
}

// keyName is prefix and k in nine digits ("Customer#000000042").
func keyName(prefix string, k int64) string {
	buf := make([]byte, 0, len(prefix)+12)
	buf = append(buf, prefix...)
	d := strconv.FormatInt(k, 10)
	for i := len(d); i < 9; i++ {
		buf = append(buf, '0')
	}
	return string(append(buf, d...))
}

// city returns an SSB city: the nation's first 9 characters, padded with
// blanks, and a digit (dbgen's gen_city, CITY_FIX 10).
func city(nation string, digit int) string {
	if len(nation) > 9 {
		nation = nation[:9]
	}
	return fmt.Sprintf("%-9s%d", nation, digit)
}

// cities are every nation's ten cities, made once.
var cities = func() (c [][10]string) {
	c = make([][10]string, len(nations))
	for n := range nations {
		for d := range 10 {
			c[n][d] = city(nations[n].Name, d)
		}
	}
	return c
}()

// place draws a nation and a city in it, for customers and suppliers.
func (r *rows) place() (nation int, city string) {
	nation = r.rnd.IntN(len(nations))
	return nation, cities[nation][r.rnd.IntN(10)]
}

// party fills what customers and suppliers share: key, name, address and
// place, in dbgen's order of draws.
func (r *rows) party(prefix string, k int64) {
	n, city := r.place()
	i, s := r.row.Ints, r.row.Strs
	i[0] = k
	s[1] = keyName(prefix, k)
	s[2] = r.address()
	s[3] = city
	s[4] = nations[n].Name
	s[5] = regions[nations[n].Region]
	s[6] = r.phone(n)
}

func (r *rows) customer(k int64) {
	r.party("Customer#", k)
	r.row.Strs[7] = r.pick(mktSegments)
}

func (r *rows) supplier(k int64) { r.party("Supplier#", k) }

// The 5 manufacturers, their 25 categories and 1 000 brands, made once.
var mfgrNames, categoryNames, brandNames = func() (m [5]string, c [5][5]string, b [5][5][40]string) {
	for i := range 5 {
		m[i] = fmt.Sprintf("MFGR#%d", i+1)
		for j := range 5 {
			c[i][j] = fmt.Sprintf("MFGR#%d%d", i+1, j+1)
			for k := range 40 {
				b[i][j][k] = fmt.Sprintf("MFGR#%d%d%02d", i+1, j+1, k+1)
			}
		}
	}
	return
}()

func (r *rows) part(k int64) {
	// dbgen's SSBM part name: three distinct colours (P_NAME_SCL 3), the first
	// of which becomes p_color and is cut from the name.
	var w [3]int
	for i := range w {
	again:
		w[i] = r.rnd.IntN(len(colors))
		for j := range i {
			if w[j] == w[i] {
				goto again
			}
		}
	}
	mfgr := r.between(1, 5)
	cat := r.between(1, 5)
	brand := r.between(1, 40)
	i, s := r.row.Ints, r.row.Strs
	i[0] = k
	s[1] = colors[w[1]] + " " + colors[w[2]]
	s[2] = mfgrNames[mfgr-1]
	s[3] = categoryNames[mfgr-1][cat-1]
	s[4] = brandNames[mfgr-1][cat-1][brand-1]
	s[5] = colors[w[0]]
	s[6] = r.pick(partTypes)
	i[7] = r.between(1, 50)
	s[8] = r.pick(containers)
}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}

// dateOf returns the day of date-table row k (1-based).
func dateOf(k int64) time.Time { return dateStart.AddDate(0, 0, int(k-1)) }

// dateKey is dbgen's integer key of a day, yyyymmdd.
func dateKey(t time.Time) int64 {
	return int64(t.Year()*10000 + int(t.Month())*100 + t.Day())
}

// season follows dbgen's seasons table; the first match wins and every month
// has one (December is "Christmas").
func season(m time.Month) string {
	switch {
	case m >= 11:
		return "Christmas"
	case m >= 5 && m <= 8:
		return "Summer"
	case m <= 3:
		return "Winter"
	case m == 4:
		return "Spring"
	}
	return "Fall"
}

// holidays are dbgen's (month, day) holidays.
var holidays = map[[2]int]bool{{12, 24}: true, {1, 1}: true, {2, 20}: true, {4, 20}: true, {5, 20}: true,
	{7, 20}: true, {8, 20}: true, {9, 20}: true, {10, 20}: true, {11, 20}: true}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (r *rows) date(k int64) {
	t := dateOf(k)
	dayInWeek := int64(t.Weekday()) + 1 // Sunday = 1
	month := monthNames[t.Month()-1]
	last := t.AddDate(0, 0, 1).Day() == 1
	i, s := r.row.Ints, r.row.Strs
	i[0] = dateKey(t)
	s[1] = fmt.Sprintf("%s %d, %d", month, t.Day(), t.Year())
	s[2] = t.Weekday().String()
	s[3] = month
	i[4] = int64(t.Year())
	i[5] = int64(t.Year()*100 + int(t.Month()))
	s[6] = fmt.Sprintf("%.3s%d", month, t.Year())
	i[7] = dayInWeek
	i[8] = int64(t.Day())
	i[9] = int64(t.YearDay())
	i[10] = int64(t.Month())
	// dbgen's week number, daynuminyear/7+1 (so days 7…13 are week 2): not
	// an ISO week. Q1.3 depends on it (see queries.go).
	i[11] = int64(t.YearDay()/7 + 1)
	s[12] = season(t.Month())
	i[13] = flag(dayInWeek == 7)
	i[14] = flag(last)
	i[15] = flag(holidays[[2]int{int(t.Month()), t.Day()}])
	i[16] = flag(dayInWeek != 1 && dayInWeek != 7)
}

// orderKey is dbgen's sparse order key of order index i (ez_sparse: of every
// 32 keys, the first 8 are used).
func orderKey(i int64) int64 { return i>>3<<5 | i&7 }

// retailPrice is dbgen's part price in cents (rpb_routine), from which the
// lineorder's money columns are derived.
func retailPrice(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + (partkey%1000)*100
}

// revenue is dbgen's lo_revenue: the extended price less the discount, in
// whole cents, truncated.
func revenue(extendedPrice, discount int64) int64 { return extendedPrice * (100 - discount) / 100 }

// supplyCost is dbgen's lo_supplycost, 60% of the retail price, truncated.
func supplyCost(partkey int64) int64 { return 6 * retailPrice(partkey) / 10 }

// maxOrderDay is the last order date's index from 1992-01-01: dbgen's
// O_ODATE_MAX leaves room for the longest ship and receipt delays (121 + 30
// days) before the end of its 2 557 days, i.e. 1998-08-02.
const maxOrderDay = 2557 - (121 + 30) - 1

func (r *rows) order(i int64) {
	c := r.g.counts
	day := r.between(0, maxOrderDay)
	odate := dateKey(dateStart.AddDate(0, 0, int(day)))
	// A third of the customers place no orders (dbgen's CUST_MORTALITY 3).
	cust := r.between(1, c.Customer)
	if cust%3 == 0 {
		if cust+1 <= c.Customer {
			cust++
		} else {
			cust--
		}
	}
	if cust < 1 {
		cust = 1
	}
	prio := r.pick(orderPriorities)
	n := int(r.between(1, 7))
	if cap(r.lines) < 7 {
		r.lines = make([]*driver.TypedRow, 7)
		for j := range r.lines {
			r.lines[j] = driver.NewTypedRow(r.row.Kinds())
		}
	}
	r.lines = r.lines[:n]
	var total int64
	key := orderKey(i)
	for j := range n {
		part := r.between(1, c.Part)
		supp := r.between(1, c.Supplier)
		qty := r.between(1, 50)
		disc := r.between(0, 10)
		tax := r.between(0, 8)
		commit := dateKey(dateStart.AddDate(0, 0, int(day+r.between(30, 90))))
		mode := r.pick(shipModes)
		ext := retailPrice(part) * qty
		total += ext * (100 - disc) / 100 * (100 + tax) / 100
		v, s := r.lines[j].Ints, r.lines[j].Strs
		v[0] = key
		v[1] = int64(j + 1)
		v[2] = cust
		v[3] = part
		v[4] = supp
		v[5] = odate
		s[6] = prio
		v[7] = 0
		v[8] = qty
		v[9] = ext
		v[11] = disc
		v[12] = revenue(ext, disc)
		v[13] = supplyCost(part)
		v[14] = tax
		v[15] = commit
		s[16] = mode
	}
	for _, l := range r.lines {
		l.Ints[10] = total
	}
}

// FlatRows returns lineorder_flat's rows for the orders of chunk c (columns
// FlatColumns): each line joined with its customer, supplier and part. As
// every row is a function of its key, the dimension rows are made again
// rather than looked up, so an engine that cannot join (ClickHouse 18.16)
// loads the same table the join would build.
func (g *Generator) FlatRows(c Chunk) driver.RowSource {
	f := &flatRows{lines: g.Rows(Lineorder, c).(*rows)}
	f.cust = g.Rows(Customer, Chunk{1, 0}).(*rows)
	f.supp = g.Rows(supplier, Chunk{1, 0}).(*rows)
	f.part = g.Rows(Part, Chunk{1, 0}).(*rows)
	f.row = driver.NewTypedRow(kindsOf(flatColumns()))
	return f
}

type flatRows struct {
	lines, cust, supp, part *rows
	row                     *driver.TypedRow
	// The lines of an order share its customer (four on average): it is
	// made once per order and stays in f.cust's row.
	lastCust int64
}

// dim makes row k of a dimension table.
func dim(r *rows, k int64, fill func(int64)) {
	r.seed(k)
	fill(k)
}

func (f *flatRows) Next() bool {
	if !f.lines.Next() {
		return false
	}
	l := f.lines.row
	if ck := l.Ints[2]; ck != f.lastCust {
		dim(f.cust, ck, f.cust.customer)
		f.lastCust = ck
	}
	dim(f.supp, l.Ints[4], f.supp.supplier)
	dim(f.part, l.Ints[3], f.part.part)
	// The flat row is the line and each dimension's row without its key.
	copy(f.row.Strs, l.Strs)
	at := copy(f.row.Ints, l.Ints)
	for _, d := range [...]*driver.TypedRow{f.cust.row, f.supp.row, f.part.row} {
		copy(f.row.Strs[at:], d.Strs[1:])
		at += copy(f.row.Ints[at:], d.Ints[1:])
	}
	return true
}

func (f *flatRows) Values() []any { return f.row.Values() }

func (f *flatRows) Kinds() []driver.Kind { return f.row.Kinds() }

func (f *flatRows) Typed() ([]int64, []string) { return f.row.Typed() }
