# version: go-ycsb v1.0.1 built from the module source of github.com/pingcap/go-ycsb@v1.0.1 (scripts/install-go-ycsb.sh); PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on 127.0.0.1:5432; password from PGPASSWORD (go-ycsb's lib/pq reads it when pg.password is unset)
# the load a tool = "ycsb" cell runs before its first run (adapter.loadYcsb): fairbench's own table, dropped and recreated (dropdata)
# captured: 2026-11-22T14:00:55Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
go-ycsb load postgresql -p table=fairbench_ycsb -p recordcount=1000 -p fieldcount=10 -p fieldlength=100 -p workload=core -p threadcount=4 -p dropdata=true -p pg.host=127.0.0.1 -p pg.port=5432 -p pg.user=bench -p pg.db=bench -p pg.sslmode=disable
