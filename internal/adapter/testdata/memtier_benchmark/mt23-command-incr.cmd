# version: memtier_benchmark v=2.3.0 sha=00000000:0 bits=64 libevent=2.1.12-stable openssl=OpenSSL 3.0.19 27 Jan 2026; server Redis 7.0.15 on 127.0.0.1:6391 (private, empty before the run unless said)
# captured: 2026-11-25T14:33:01Z on x86_64, 2 cores, client and server on one host; mt23-command-incr.txt = stdout and stderr together (2>&1); the JSON file is mt23-command-incr.json
memtier_benchmark -s 127.0.0.1 -p 6391 --protocol=redis -c 5 -t 2 --test-time=3 --command=INCR\ __key__ --key-maximum=1000 --json-out-file=mt23-command-incr.json
