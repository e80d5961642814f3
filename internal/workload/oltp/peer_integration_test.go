package oltp_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// The data of the side-by-side runs, and the transactions each run stops
// after (sysbench --events, the native events parameter).
const (
	peerTables    = 2
	peerTableSize = 5000
	peerEvents    = 400
)

// oltpPeerCell is a one-cell study of sysbench's oltp_<mode> on url,
// count-bound (the duration only bounds it): the native workload, or
// sysbench itself (tool = "sysbench") on the tables the native workload
// loads.
func oltpPeerCell(url, tool, mode string, clients int) string {
	line := `kind = "oltp"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "oltp beside sysbench"
warmup = "0s"
duration = "120s"
[[target]]
name = "mariadb"
url = "%s"
[[workload]]
%s
mode = %q
clients = [%d]
tables = %d
table_size = %d
events = %d
`, url, line, mode, clients, peerTables, peerTableSize, peerEvents)
}

// tableShape is what a prepare leaves in one sbtest table: its rows and
// the range of their ids.
type tableShape struct{ rows, minID, maxID int64 }

func tableShapes(t *testing.T, url string) []tableShape {
	t.Helper()
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	defer c.Close(context.Background())
	var out []tableShape
	for i := 1; i <= peerTables; i++ {
		var s tableShape
		for _, q := range []struct {
			expr string
			into *int64
		}{{"count(*)", &s.rows}, {"min(id)", &s.minID}, {"max(id)", &s.maxID}} {
			n, err := c.QueryInt64(context.Background(), fmt.Sprintf("SELECT %s FROM sbtest%d", q.expr, i))
			if err != nil {
				t.Fatalf("sbtest%d: %v", i, err)
			}
			*q.into = n
		}
		out = append(out, s)
	}
	return out
}

// sysbenchPrepare runs sysbench's own prepare into the database of url
// (MariaDB), the password in MYSQL_PWD, never on its command line.
func sysbenchPrepare(t *testing.T, bin, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	cmd := exec.Command(bin, "oltp_read_write", "--db-driver=mysql", "--mysql-host="+u.Hostname(), "--mysql-port="+u.Port(),
		"--mysql-user="+u.User.Username(), "--mysql-db="+strings.TrimPrefix(u.Path, "/"),
		fmt.Sprintf("--tables=%d", peerTables), fmt.Sprintf("--table-size=%d", peerTableSize), "prepare")
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+pw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
}

// sysbenchCount is a count sysbench printed, as the adapter read it.
func sysbenchCount(r *result.Run, key string) (int64, bool) {
	env, _ := r.Env.Extra["sysbench"].(map[string]any)
	n, ok := env[key].(int64)
	return n, ok
}

// sysbench 1.0.20 and fairbench's oltp on MariaDB, count-bound. sysbench's
// own prepare and fairbench's, each into a fresh database, leave tables of
// the same rows and ids (1 … table_size in each). Then, for read_only on 4
// clients and read_write on 1 (one client: no deadlock can restart a
// transaction and add its statements), sysbench — run by its tool cell, its
// output read by the adapter that imports it — and the native workload each
// count the 400 transactions asked for, sysbench's "total number of
// events" equal to its "transactions:" and no ignored errors; and the
// queries per transaction agree exactly, sysbench's "queries:" ÷
// "transactions:" and fairbench's read + write + other ÷ transactions:
// sysbench's default statements, 16 for read_only (10 point SELECTs, 4
// range SELECTs, BEGIN, COMMIT) and 20 for read_write (with 2 UPDATEs, a
// DELETE and an INSERT). Rates are not compared: on a shared host they vary
// from one minute to the next (bench/ pairs them instead).
func TestOLTPAgreesWithSysbench(t *testing.T) {
	bin := testenv.Tool(t, "sysbench")
	peerData, toolDB, ownDB := testenv.FreshMySQL(t), testenv.FreshMySQL(t), testenv.FreshMySQL(t)
	sysbenchPrepare(t, bin, peerData)
	peerShape := tableShapes(t, peerData)
	for _, s := range peerShape {
		if s != (tableShape{peerTableSize, 1, peerTableSize}) {
			t.Fatalf("sysbench's prepare left %+v per table, want %d rows of ids 1 … %d", peerShape, peerTableSize, peerTableSize)
		}
	}
	for _, c := range []struct {
		mode    string
		clients int
		queries int64 // per transaction
	}{{"read_only", 4, 16}, {"read_write", 1, 20}} {
		t.Run(c.mode, func(t *testing.T) {
			peer, err := cellrun.One(t, oltpPeerCell(toolDB, "sysbench", c.mode, c.clients), false)
			if err != nil || peer.Status != result.StatusOK {
				t.Fatalf("sysbench: %v (%s %s)", err, peer.Status, peer.Error)
			}
			own, err := cellrun.One(t, oltpPeerCell(ownDB, "", c.mode, c.clients), false)
			if err != nil || own.Status != result.StatusOK {
				t.Fatalf("fairbench: %v (%s %s)", err, own.Status, own.Error)
			}
			events, okE := sysbenchCount(peer, "events")
			queries, okQ := sysbenchCount(peer, "queries")
			if !okE || !okQ {
				t.Fatalf("sysbench's run holds no events or queries: %v", peer.Env.Extra["sysbench"])
			}
			if s := peer.Summary; s.Transactions != peerEvents || events != s.Transactions || s.Retries != 0 {
				t.Errorf("sysbench: %d transactions, %d events, %d ignored errors; want %d of each and none", s.Transactions, events, s.Retries, peerEvents)
			}
			if s := own.Summary; s.Transactions != peerEvents || s.Failed != 0 || s.Retries != 0 {
				t.Errorf("fairbench: %d transactions (%d failed, %d retried); want %d, none failed or retried", s.Transactions, s.Failed, s.Retries, peerEvents)
			}
			ownQueries := int64(own.Summary.Extra["queries_read"] + own.Summary.Extra["queries_write"] + own.Summary.Extra["queries_other"])
			t.Logf("queries per transaction: sysbench %d ÷ %d, fairbench %d ÷ %d", queries, peer.Summary.Transactions, ownQueries, own.Summary.Transactions)
			if queries != c.queries*peer.Summary.Transactions || ownQueries != c.queries*own.Summary.Transactions {
				t.Errorf("queries: sysbench %d in %d transactions, fairbench %d in %d; want %d per transaction in each",
					queries, peer.Summary.Transactions, ownQueries, own.Summary.Transactions, c.queries)
			}
		})
	}
	// read_only changes no row, and read_write's DELETE/INSERT pairs put
	// back the id they deleted: what each prepare loaded is still there.
	for name, db := range map[string]string{"sysbench's tool cell": toolDB, "fairbench": ownDB} {
		if got := tableShapes(t, db); fmt.Sprint(got) != fmt.Sprint(peerShape) {
			t.Errorf("%s's tables: %+v; sysbench's prepare: %+v", name, got, peerShape)
		}
	}
}
