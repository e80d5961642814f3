# version: YCSB 0.18.0-SNAPSHOT (brianfrankcooper/YCSB at d9faaac8, built by scripts/install-ycsb-java.sh: core, redis binding with Jedis); OpenJDK 17.0.15 (Debian 12); Redis 7.0.15 (Debian redis-server) on 127.0.0.1:6393, a private instance started for these captures (the redis binding has no database-number option), empty before the load
# run phase of workload A on the data java-0.18-redis-workloada-load loaded
# captured: 2026-11-25T20:57:37Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
cd /tmp/ycsb-peers-bin/ycsb-java && bin/ycsb.sh run redis -s -P workloads/workloada -p redis.host=127.0.0.1 -p redis.port=6393 -p recordcount=10000 -p operationcount=20000 -threads 4
