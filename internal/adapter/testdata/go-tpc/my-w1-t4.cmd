# version: go-tpc v1.0.12 (github.com/pingcap/go-tpc/cmd/go-tpc, built by scripts/install-go-tpc.sh; 'go-tpc version' prints Release version: dev); server MariaDB 10.11.19-MariaDB-0+deb12u1 on 127.0.0.1:3306
# captured: 2026-11-25T18:08:12Z on x86_64, 2 cores, client and server on one host; my-w1-t4.txt = stdout and stderr together (2>&1); exit status 0; wall time 30 s
go-tpc tpcc run --warehouses 1 -d mysql -H 127.0.0.1 -P 3306 -U bench -p "$PW" -D gotpc_w1b -T 4 --time 30s
