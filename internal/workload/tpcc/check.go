package tpcc

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// consistency are the specification's consistency conditions 1–4 (clause
// 3.3.2), each a query counting the warehouses or districts that break it.
// Condition 1 allows half a cent for SQLite, whose decimals are floats.
var consistency = []struct{ name, sql string }{
	{"1: W_YTD = sum(D_YTD) for each warehouse",
		"SELECT count(*) FROM warehouse w WHERE abs(w.w_ytd - (SELECT sum(d.d_ytd) FROM district d WHERE d.d_w_id = w.w_id)) > 0.005"},
	{"2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district",
		"SELECT count(*) FROM district d WHERE d.d_next_o_id - 1 <> (SELECT max(o.o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id) " +
			"OR d.d_next_o_id - 1 <> (SELECT coalesce(max(n.no_o_id), d.d_next_o_id - 1) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id)"},
	{"3: max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER for each district",
		"SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) x WHERE x.span <> x.n"},
	{"4: sum(O_OL_CNT) = rows in ORDER-LINE for each district",
		"SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o " +
			"LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l " +
			"ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id WHERE l.n IS NULL OR o.s <> l.n"},
}

// check is the Check hook: consistency conditions 1–4.
func (in *instance) check(ctx context.Context, conn driver.Conn) error {
	c, err := workload.SQLConn("tpcc", conn)
	if err != nil {
		return err
	}
	return checkConsistency(ctx, c)
}

func checkConsistency(ctx context.Context, c driver.SQL) error {
	for _, cc := range consistency {
		n, err := c.QueryInt64(ctx, cc.sql)
		if err != nil {
			return fmt.Errorf("consistency condition %s: %w", cc.name, err)
		}
		if n != 0 {
			return fmt.Errorf("consistency condition %s does not hold in %d warehouse(s) or district(s)", cc.name, n)
		}
	}
	return nil
}
