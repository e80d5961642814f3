# version: pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)
# captured: 2026-11-22T11:46:18Z on x86_64, 2 cores, client and server on one host; output is stdout and stderr together (2>&1)
pgbench -h 127.0.0.1 -U bench -S -M prepared -c 4 -j 2 -T 4 -P 1 -r fbfix
