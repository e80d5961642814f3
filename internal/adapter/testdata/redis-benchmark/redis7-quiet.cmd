# version: redis-benchmark 7.0.15
# captured: 2026-11-22T11:46:56Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
redis-benchmark -h 127.0.0.1 -p 6390 -c 10 -n 20000 -t set,get,incr -q
