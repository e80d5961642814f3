package tpcc

import (
	"fmt"
	"strings"
)

// The nine tables of the TPC-C specification (clause 1.3), with the
// specification's (and HammerDB's, and go-tpc's) names, so that a database
// another tool loaded is recognised and reused at the same warehouse count.
var tables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// columns of each table in the specification's order, with the type each
// dialect gets. Identifiers and counts are integers (the specification
// allows any type that holds the range; HammerDB's NUMERIC ids cost
// PostgreSQL arithmetic for nothing); money and rates are exact decimals.
var columns = map[string][]string{
	"warehouse": {"w_id int", "w_name varchar(10)", "w_street_1 varchar(20)", "w_street_2 varchar(20)", "w_city varchar(20)",
		"w_state char(2)", "w_zip char(9)", "w_tax decimal(4,4)", "w_ytd decimal(12,2)"},
	"district": {"d_id int", "d_w_id int", "d_name varchar(10)", "d_street_1 varchar(20)", "d_street_2 varchar(20)",
		"d_city varchar(20)", "d_state char(2)", "d_zip char(9)", "d_tax decimal(4,4)", "d_ytd decimal(12,2)", "d_next_o_id int"},
	"customer": {"c_id int", "c_d_id int", "c_w_id int", "c_first varchar(16)", "c_middle char(2)", "c_last varchar(16)",
		"c_street_1 varchar(20)", "c_street_2 varchar(20)", "c_city varchar(20)", "c_state char(2)", "c_zip char(9)",
		"c_phone char(16)", "c_since timestamp", "c_credit char(2)", "c_credit_lim decimal(12,2)", "c_discount decimal(4,4)",
		"c_balance decimal(12,2)", "c_ytd_payment decimal(12,2)", "c_payment_cnt int", "c_delivery_cnt int", "c_data varchar(500)"},
	"history": {"h_c_id int", "h_c_d_id int", "h_c_w_id int", "h_d_id int", "h_w_id int", "h_date timestamp",
		"h_amount decimal(6,2)", "h_data varchar(24)"},
	"new_order": {"no_o_id int", "no_d_id int", "no_w_id int"},
	"orders": {"o_id int", "o_d_id int", "o_w_id int", "o_c_id int", "o_entry_d timestamp", "o_carrier_id int null",
		"o_ol_cnt int", "o_all_local int"},
	"order_line": {"ol_o_id int", "ol_d_id int", "ol_w_id int", "ol_number int", "ol_i_id int", "ol_supply_w_id int",
		"ol_delivery_d timestamp null", "ol_quantity int", "ol_amount decimal(6,2)", "ol_dist_info char(24)"},
	"item": {"i_id int", "i_im_id int", "i_name varchar(24)", "i_price decimal(5,2)", "i_data varchar(50)"},
	"stock": {"s_i_id int", "s_w_id int", "s_quantity int", "s_dist_01 char(24)", "s_dist_02 char(24)", "s_dist_03 char(24)",
		"s_dist_04 char(24)", "s_dist_05 char(24)", "s_dist_06 char(24)", "s_dist_07 char(24)", "s_dist_08 char(24)",
		"s_dist_09 char(24)", "s_dist_10 char(24)", "s_ytd int", "s_order_cnt int", "s_remote_cnt int", "s_data varchar(50)"},
}

// primaryKeys are the specification's primary keys (history has none), as
// HammerDB declares them.
var primaryKeys = map[string]string{
	"warehouse":  "w_id",
	"district":   "d_w_id, d_id",
	"customer":   "c_w_id, c_d_id, c_id",
	"new_order":  "no_w_id, no_d_id, no_o_id",
	"orders":     "o_w_id, o_d_id, o_id",
	"order_line": "ol_w_id, ol_d_id, ol_o_id, ol_number",
	"item":       "i_id",
	"stock":      "s_w_id, s_i_id",
}

// secondaryIndexes are HammerDB's two: customers by last name (Payment and
// Order-Status select 60 % of their customers by it) and a customer's orders
// (Order-Status's newest order).
var secondaryIndexes = []struct{ name, table, cols string }{
	{"customer_i2", "customer", "c_w_id, c_d_id, c_last, c_first, c_id"},
	{"orders_i2", "orders", "o_w_id, o_d_id, o_c_id, o_id"},
}

// columnNames returns table's column names in order.
func columnNames(table string) []string {
	cols := columns[table]
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i], _, _ = strings.Cut(c, " ")
	}
	return out
}

// createTable returns the CREATE TABLE statement of table for dialect.
// PostgreSQL gets its keys after the load (a COPY into an unindexed table is
// fastest, as pgbench -i does); InnoDB and SQLite cluster rows by the
// primary key, which must exist before the first row.
func createTable(dialect, table string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + table + " (")
	for i, c := range columns[table] {
		if i > 0 {
			b.WriteString(", ")
		}
		name, typ, _ := strings.Cut(c, " ")
		null := strings.HasSuffix(typ, " null")
		typ = strings.TrimSuffix(typ, " null")
		if dialect == "sqlite" {
			typ = sqliteType(typ)
		}
		b.WriteString(name + " " + typ)
		if !null && table != "history" {
			b.WriteString(" NOT NULL")
		}
	}
	if pk, ok := primaryKeys[table]; ok && dialect != "postgres" {
		b.WriteString(", PRIMARY KEY (" + pk + ")")
	}
	b.WriteString(")")
	switch dialect {
	case "mysql":
		b.WriteString(" ENGINE=InnoDB")
	case "sqlite":
		if _, ok := primaryKeys[table]; ok {
			b.WriteString(" WITHOUT ROWID") // the key is the table, as in InnoDB
		}
	}
	return b.String()
}

// sqliteType maps a column type to SQLite's affinities: decimals keep NUMERIC
// affinity, so "12.34" is stored as a number.
func sqliteType(t string) string {
	switch {
	case t == "int":
		return "INTEGER"
	case strings.HasPrefix(t, "decimal"):
		return "NUMERIC"
	case t == "timestamp":
		return "TIMESTAMP"
	}
	return strings.ToUpper(t)
}

// afterLoad returns the statements that finish a load on dialect: keys and
// indexes, then statistics.
func afterLoad(dialect string) []string {
	var out []string
	if dialect == "postgres" {
		for _, t := range tables {
			if pk, ok := primaryKeys[t]; ok {
				out = append(out, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_pkey PRIMARY KEY (%s)", t, t, pk))
			}
		}
	}
	for _, ix := range secondaryIndexes {
		out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", ix.name, ix.table, ix.cols))
	}
	switch dialect {
	case "postgres":
		out = append(out, "VACUUM ANALYZE")
	case "mysql":
		out = append(out, "ANALYZE TABLE "+strings.Join(tables, ", "))
	case "sqlite":
		out = append(out, "ANALYZE")
	}
	return out
}
