# version: go-ycsb v1.0.1 built from the module source of github.com/pingcap/go-ycsb@v1.0.1 (scripts/install-go-ycsb.sh); Redis 7.0.15 on 127.0.0.1:6379 (the shared test server), database 9 (redis.db=9), empty before the load; workload files are Java YCSB's (YCSB d9faaac8 workloads/, the same as Java's captures) with -p workload=core (go-ycsb's name for CoreWorkload)
# run phase of workload C on the data go-ycsb101-redis-workloadc-load loaded
# captured: 2026-11-25T20:58:13Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
cd /tmp/ycsb-peers-bin/ycsb-java && /work/main/.bin/go-ycsb run redis -P workloads/workloadc -p workload=core -p redis.addr=127.0.0.1:6379 -p redis.db=9 -p recordcount=10000 -p operationcount=20000 -p threadcount=4
