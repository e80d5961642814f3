# version: go-tpc v1.0.12 (github.com/pingcap/go-tpc/cmd/go-tpc, built by scripts/install-go-tpc.sh; 'go-tpc version' prints Release version: dev); server PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on 127.0.0.1:5432
# captured: 2026-11-25T17:43:05Z on x86_64, 2 cores, client and server on one host; pg-w1-t16.txt = stdout and stderr together (2>&1); exit status 0; wall time 30 s
PGPASSWORD=… go-tpc tpcc run --warehouses 1 -d postgres -H 127.0.0.1 -P 5432 -U bench --conn-params sslmode=disable -D gotpc_fixtures -T 16 --time 30s
