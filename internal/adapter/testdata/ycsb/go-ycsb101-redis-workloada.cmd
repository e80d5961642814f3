# version: go-ycsb v1.0.1 (built from the module source of github.com/pingcap/go-ycsb@v1.0.1); Redis 7.0.15 on 127.0.0.1:6390, loaded with: go-ycsb load redis -P workloads/workloada -p redis.addr=127.0.0.1:6390 -p recordcount=1000 -p threadcount=2
# captured: 2026-11-22T11:56:00Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
cd /tmp/fb4-ycsb/src && /tmp/fb4-ycsb/bin/go-ycsb run redis -P workloads/workloada -p redis.addr=127.0.0.1:6390 -p recordcount=1000 -p operationcount=20000 -p threadcount=4
