package ssb

import (
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Dialects the schema and the queries are written for.
const (
	SQLite       = "sqlite"
	Postgres     = "postgres"
	ClickHouse   = "clickhouse"       // a current ClickHouse: LowCardinality, joins
	ClickHouse18 = "clickhouse-18.16" // the only server obtainable on the test machines
)

// Dialects lists every dialect.
var Dialects = []string{SQLite, Postgres, ClickHouse, ClickHouse18}

// column is one column: its SQL type in SQLite, PostgreSQL and ClickHouse,
// and whether the ClickHouse documentation makes it LowCardinality.
type column struct {
	name    string
	sqlite  string
	pg      string
	ch      string
	lowCard bool
}

// Integer columns hold dbgen's values, money in whole cents (dbgen's scaled
// integers), dates as yyyymmdd keys: every engine stores them exactly, so a
// query's result is the same number everywhere, with no rounding to decide.
// Money is BIGINT in PostgreSQL so that products like lo_extendedprice ×
// lo_discount cannot overflow before the SUM widens them. Strings are
// VARCHAR, not CHAR: a padded CHAR would come back with blanks in one
// engine and not in another.
func ints(name, ch string) column { return column{name, "INTEGER", "INTEGER", ch, false} }
func money(name string) column    { return column{name, "INTEGER", "BIGINT", "UInt32", false} }
func str(name string, n int, lowCard bool) column {
	return column{name, "TEXT", fmt.Sprintf("VARCHAR(%d)", n), "String", lowCard}
}

var schemas = map[string][]column{
	Customer: {
		ints("c_custkey", "UInt32"), str("c_name", 25, false), str("c_address", 40, false),
		str("c_city", 10, true), str("c_nation", 15, true), str("c_region", 12, true),
		str("c_phone", 15, false), str("c_mktsegment", 10, true),
	},
	supplier: {
		ints("s_suppkey", "UInt32"), str("s_name", 25, false), str("s_address", 40, false),
		str("s_city", 10, true), str("s_nation", 15, true), str("s_region", 12, true),
		str("s_phone", 15, false),
	},
	Part: {
		ints("p_partkey", "UInt32"), str("p_name", 22, false), str("p_mfgr", 6, true),
		str("p_category", 7, true), str("p_brand1", 9, true), str("p_color", 11, true),
		str("p_type", 25, true), ints("p_size", "UInt8"), str("p_container", 10, true),
	},
	Date: {
		ints("d_datekey", "UInt32"), str("d_date", 18, false), str("d_dayofweek", 9, true),
		str("d_month", 9, true), ints("d_year", "UInt16"), ints("d_yearmonthnum", "UInt32"),
		str("d_yearmonth", 7, true), ints("d_daynuminweek", "UInt8"), ints("d_daynuminmonth", "UInt8"),
		ints("d_daynuminyear", "UInt16"), ints("d_monthnuminyear", "UInt8"), ints("d_weeknuminyear", "UInt8"),
		str("d_sellingseason", 12, false), ints("d_lastdayinweekfl", "UInt8"), ints("d_lastdayinmonthfl", "UInt8"),
		ints("d_holidayfl", "UInt8"), ints("d_weekdayfl", "UInt8"),
	},
	Lineorder: {
		// Sparse order keys reach 4×orders: past INTEGER at SF 358.
		column{"lo_orderkey", "INTEGER", "BIGINT", "UInt32", false}, ints("lo_linenumber", "UInt8"), ints("lo_custkey", "UInt32"),
		ints("lo_partkey", "UInt32"), ints("lo_suppkey", "UInt32"), ints("lo_orderdate", "UInt32"),
		str("lo_orderpriority", 15, true), ints("lo_shippriority", "UInt8"), ints("lo_quantity", "UInt8"),
		money("lo_extendedprice"), money("lo_ordtotalprice"), ints("lo_discount", "UInt8"),
		money("lo_revenue"), money("lo_supplycost"), ints("lo_tax", "UInt8"),
		ints("lo_commitdate", "UInt32"), str("lo_shipmode", 10, true),
	},
}

// kindsOf gives the generator's kind of each column: strings for the text
// columns, integers for the others.
func kindsOf(cols []column) []driver.Kind {
	out := make([]driver.Kind, len(cols))
	for i, c := range cols {
		if c.sqlite == "TEXT" {
			out[i] = driver.KindString
		}
	}
	return out
}

// flatColumns are lineorder_flat's: all of lineorder's and the customer's,
// supplier's and part's without their keys, as in the ClickHouse
// documentation's lineorder_flat.
func flatColumns() []column {
	out := append([]column(nil), schemas[Lineorder]...)
	out = append(out, schemas[Customer][1:]...)
	out = append(out, schemas[supplier][1:]...)
	return append(out, schemas[Part][1:]...)
}

// FlatColumns returns lineorder_flat's column names, in FlatRows' order.
func FlatColumns() []string {
	var names []string
	for _, c := range flatColumns() {
		names = append(names, c.name)
	}
	return names
}

// keys are the sort (ClickHouse) and primary (SQLite, PostgreSQL) keys.
var keys = map[string]string{
	Customer:  "c_custkey",
	supplier:  "s_suppkey",
	Part:      "p_partkey",
	Date:      "d_datekey",
	Lineorder: "lo_orderkey, lo_linenumber",
}

// CreateTable returns the CREATE TABLE statement of table (one of Tables or
// Flat) in dialect.
func CreateTable(dialect, table string) (string, error) {
	cols, ok := schemas[table]
	key := keys[table]
	if table == Flat {
		cols, ok, key = flatColumns(), true, keys[Lineorder]
	}
	if !ok {
		return "", fmt.Errorf("ssb: unknown table %q", table)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", table)
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		switch dialect {
		case SQLite:
			fmt.Fprintf(&b, "%s %s NOT NULL", c.name, c.sqlite)
		case Postgres:
			fmt.Fprintf(&b, "%s %s NOT NULL", c.name, c.pg)
		case ClickHouse:
			t := c.ch
			if c.lowCard {
				t = "LowCardinality(String)"
			}
			fmt.Fprintf(&b, "%s %s", c.name, t)
		case ClickHouse18:
			// LowCardinality is experimental in 18.16 (it needs
			// allow_experimental_low_cardinality_type): plain String.
			fmt.Fprintf(&b, "%s %s", c.name, c.ch)
		default:
			return "", fmt.Errorf("ssb: unknown dialect %q", dialect)
		}
	}
	switch dialect {
	case SQLite, Postgres:
		fmt.Fprintf(&b, ", PRIMARY KEY (%s))", key)
	default:
		b.WriteString(") ENGINE = MergeTree")
		if table == Lineorder || table == Flat {
			// The documentation's PARTITION BY toYear(LO_ORDERDATE) and ORDER
			// BY (LO_ORDERDATE, LO_ORDERKEY), on the integer date key.
			b.WriteString(" PARTITION BY intDiv(lo_orderdate, 10000) ORDER BY (lo_orderdate, lo_orderkey, lo_linenumber)")
		} else {
			fmt.Fprintf(&b, " ORDER BY (%s)", key)
		}
	}
	return b.String(), nil
}

// FlatFromJoin returns the statement that fills lineorder_flat (already
// created by CreateTable) from the loaded tables, or "" where the dialect
// cannot join three tables in one statement (ClickHouse 18.16: load the
// flat table from FlatRows instead).
func FlatFromJoin(dialect string) string {
	if dialect == ClickHouse18 {
		return ""
	}
	var sel []string
	for _, c := range flatColumns() {
		sel = append(sel, c.name)
	}
	return "INSERT INTO " + Flat + " (" + strings.Join(sel, ", ") + ") SELECT " + strings.Join(sel, ", ") +
		" FROM lineorder JOIN customer ON c_custkey = lo_custkey JOIN supplier ON s_suppkey = lo_suppkey" +
		" JOIN part ON p_partkey = lo_partkey"
}
