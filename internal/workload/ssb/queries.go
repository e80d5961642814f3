package ssb

import "strings"

// Query is one of SSB's 13 queries in its two forms: Join on the star schema
// and Flat on lineorder_flat. A form missing for a dialect is "".
type Query struct {
	Name string // "Q1.1" … "Q4.3"
	Join map[string]string
	Flat map[string]string
}

// Forms per dialect: SQLite, PostgreSQL and a current ClickHouse run both;
// ClickHouse 18.16 runs the flat form only, as it cannot join more than two
// tables in one SELECT (the recipe's ssb-join-queries.sql: 0 of 13).
//
// The year, the month and the week: dates are dbgen's integer yyyymmdd keys
// in every dialect (schema.go), so the flat form takes the year as
// lo_orderdate / 10000 and the month as lo_orderdate / 100 — integer
// division in SQLite and PostgreSQL, intDiv in ClickHouse — instead of
// toYear/toYYYYMM, which SQLite lacks and PostgreSQL spells otherwise. The
// join form reads d_year, d_yearmonthnum, d_yearmonth and d_weeknuminyear as
// SSB specifies.
//
// Two places where the ClickHouse documentation's flat queries differ from
// its join queries (and so would give other results) follow SSB's
// specification in both forms here: Q2.3 selects brand MFGR#2239 (the join
// form there has MFGR#2221), Q4.3 keeps c_region = 'AMERICA' (dropped from
// the flat form there). And Q1.3's flat form there takes ISO week 6 of 1994
// (toISOWeek), which is not dbgen's d_weeknuminyear = daynuminyear/7 + 1:
// here it is that week's days, 1994-02-04 … 1994-02-10.
var Queries = build()

var joinForms = [][2]string{
	{"Q1.1", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey AND d_year = 1993 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25"},
	{"Q1.2", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey AND d_yearmonthnum = 199401 AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35"},
	{"Q1.3", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey AND d_weeknuminyear = 6 AND d_year = 1994 AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 26 AND 35"},
	{"Q2.1", "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_category = 'MFGR#12' AND s_region = 'AMERICA' GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1"},
	{"Q2.2", "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 BETWEEN 'MFGR#2221' AND 'MFGR#2228' AND s_region = 'ASIA' GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1"},
	{"Q2.3", "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 = 'MFGR#2239' AND s_region = 'EUROPE' GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1"},
	{"Q3.1", "SELECT c_nation, s_nation, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND c_region = 'ASIA' AND s_region = 'ASIA' AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_nation, s_nation, d_year ORDER BY d_year ASC, revenue DESC"},
	{"Q3.2", "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC"},
	{"Q3.3", "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC"},
	{"Q3.4", "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') AND d_yearmonth = 'Dec1997' GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC"},
	{"Q4.1", "SELECT d_year, c_nation, sum(lo_revenue - lo_supplycost) AS profit FROM date, customer, supplier, part, lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') GROUP BY d_year, c_nation ORDER BY d_year, c_nation"},
	{"Q4.2", "SELECT d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit FROM date, customer, supplier, part, lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (d_year = 1997 OR d_year = 1998) AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') GROUP BY d_year, s_nation, p_category ORDER BY d_year, s_nation, p_category"},
	{"Q4.3", "SELECT d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) AS profit FROM date, customer, supplier, part, lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_nation = 'UNITED STATES' AND (d_year = 1997 OR d_year = 1998) AND p_category = 'MFGR#14' GROUP BY d_year, s_city, p_brand1 ORDER BY d_year, s_city, p_brand1"},
}

// flatForms write {Y} for the order's year and {YM} for its yyyymm, which
// build replaces per dialect.
var flatForms = [][2]string{
	{"Q1.1", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder_flat WHERE {Y} = 1993 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25"},
	{"Q1.2", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder_flat WHERE {YM} = 199401 AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35"},
	{"Q1.3", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM lineorder_flat WHERE lo_orderdate BETWEEN 19940204 AND 19940210 AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 26 AND 35"},
	{"Q2.1", "SELECT sum(lo_revenue), {Y} AS year, p_brand1 FROM lineorder_flat WHERE p_category = 'MFGR#12' AND s_region = 'AMERICA' GROUP BY {Y}, p_brand1 ORDER BY year, p_brand1"},
	{"Q2.2", "SELECT sum(lo_revenue), {Y} AS year, p_brand1 FROM lineorder_flat WHERE p_brand1 >= 'MFGR#2221' AND p_brand1 <= 'MFGR#2228' AND s_region = 'ASIA' GROUP BY {Y}, p_brand1 ORDER BY year, p_brand1"},
	{"Q2.3", "SELECT sum(lo_revenue), {Y} AS year, p_brand1 FROM lineorder_flat WHERE p_brand1 = 'MFGR#2239' AND s_region = 'EUROPE' GROUP BY {Y}, p_brand1 ORDER BY year, p_brand1"},
	{"Q3.1", "SELECT c_nation, s_nation, {Y} AS year, sum(lo_revenue) AS revenue FROM lineorder_flat WHERE c_region = 'ASIA' AND s_region = 'ASIA' AND {Y} >= 1992 AND {Y} <= 1997 GROUP BY c_nation, s_nation, {Y} ORDER BY year ASC, revenue DESC"},
	{"Q3.2", "SELECT c_city, s_city, {Y} AS year, sum(lo_revenue) AS revenue FROM lineorder_flat WHERE c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' AND {Y} >= 1992 AND {Y} <= 1997 GROUP BY c_city, s_city, {Y} ORDER BY year ASC, revenue DESC"},
	{"Q3.3", "SELECT c_city, s_city, {Y} AS year, sum(lo_revenue) AS revenue FROM lineorder_flat WHERE (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') AND {Y} >= 1992 AND {Y} <= 1997 GROUP BY c_city, s_city, {Y} ORDER BY year ASC, revenue DESC"},
	{"Q3.4", "SELECT c_city, s_city, {Y} AS year, sum(lo_revenue) AS revenue FROM lineorder_flat WHERE (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') AND {YM} = 199712 GROUP BY c_city, s_city, {Y} ORDER BY year ASC, revenue DESC"},
	{"Q4.1", "SELECT {Y} AS year, c_nation, sum(lo_revenue - lo_supplycost) AS profit FROM lineorder_flat WHERE c_region = 'AMERICA' AND s_region = 'AMERICA' AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') GROUP BY {Y}, c_nation ORDER BY year ASC, c_nation ASC"},
	{"Q4.2", "SELECT {Y} AS year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit FROM lineorder_flat WHERE c_region = 'AMERICA' AND s_region = 'AMERICA' AND ({Y} = 1997 OR {Y} = 1998) AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') GROUP BY {Y}, s_nation, p_category ORDER BY year ASC, s_nation ASC, p_category ASC"},
	{"Q4.3", "SELECT {Y} AS year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) AS profit FROM lineorder_flat WHERE c_region = 'AMERICA' AND s_nation = 'UNITED STATES' AND ({Y} = 1997 OR {Y} = 1998) AND p_category = 'MFGR#14' GROUP BY {Y}, s_city, p_brand1 ORDER BY year ASC, s_city ASC, p_brand1 ASC"},
}

func build() []Query {
	div := map[string][2]string{
		SQLite:       {"lo_orderdate / 10000", "lo_orderdate / 100"},
		Postgres:     {"lo_orderdate / 10000", "lo_orderdate / 100"},
		ClickHouse:   {"intDiv(lo_orderdate, 10000)", "intDiv(lo_orderdate, 100)"},
		ClickHouse18: {"intDiv(lo_orderdate, 10000)", "intDiv(lo_orderdate, 100)"},
	}
	var out []Query
	for i, j := range joinForms {
		q := Query{Name: j[0], Join: map[string]string{}, Flat: map[string]string{}}
		for _, d := range Dialects {
			if d != ClickHouse18 {
				q.Join[d] = j[1]
			}
			r := strings.NewReplacer("{Y}", div[d][0], "{YM}", div[d][1])
			q.Flat[d] = r.Replace(flatForms[i][1])
		}
		out = append(out, q)
	}
	return out
}

// queryNamed returns the query called name ("Q2.1").
func queryNamed(name string) (Query, bool) {
	for _, q := range Queries {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}
