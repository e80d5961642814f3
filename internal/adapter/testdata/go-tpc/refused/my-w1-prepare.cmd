# version: go-tpc v1.0.12 (github.com/pingcap/go-tpc/cmd/go-tpc, built by scripts/install-go-tpc.sh; 'go-tpc version' prints Release version: dev); server MariaDB 10.11.19-MariaDB-0+deb12u1 on 127.0.0.1:3306
# captured: 2026-11-25T17:45:21Z on x86_64, 2 cores, client and server on one host; my-w1-prepare.txt = stdout and stderr together (2>&1); wall time 529 s, most of it the consistency check's condition 3.3.2.10 (MariaDB scans history once per customer)
go-tpc tpcc prepare --warehouses 1 -d mysql -H 127.0.0.1 -P 3306 -U bench -p "$PW" -D gotpc_fixtures -T 1
