package tpcb_test

import (
	"testing"

	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/testenv"
)

// A clients sweep keeps one client code path: with fairbench's sockets the
// PostgreSQL sessions run on the wire path at 1 and 2 clients (a thread each)
// as at 8 (event loops on 2 threads); with FAIRBENCH_NET=netpoll, pgx at every
// count. The path is recorded with each run.
func TestPostgresClientPathDoesNotDependOnClients(t *testing.T) {
	url := testenv.FreshPostgres(t)
	params := map[string][]any{"mode": {"select-only"}, "scale": {int64(1)}, "query_mode": {"simple", "prepared"}}
	check := func(net, wantPath string) {
		for _, clients := range []int{1, 2, 8} {
			runs, err := runStudy(t, url, params, clients, 2, 1, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				if r.Status != result.StatusOK || r.Summary.Transactions < 10 || r.Summary.Failed != 0 {
					t.Fatalf("%s, %d clients, %s: status %s, %d transactions, %d failed: %s", net, clients, r.Params["query_mode"], r.Status, r.Summary.Transactions, r.Summary.Failed, r.Error)
				}
				client := r.Env.Client
				if path := client.Path; path != wantPath {
					t.Errorf("%s, %d clients, %s: client path %q, want %q (io %v)", net, clients, r.Params["query_mode"], path, wantPath, client.IO)
				}
				if net == "sockets" {
					wantClientIO(t, r, clients > 2)
				}
			}
		}
	}
	if fastpath.Enabled() {
		check("sockets", "wire (pgproto3 messages)")
	}
	t.Setenv("FAIRBENCH_NET", "netpoll")
	check("netpoll", "pgx")
}
