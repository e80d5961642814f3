# version: pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)
# captured: 2026-11-22T11:52:47Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
PGOPTIONS='-c synchronous_commit=local' pgbench -h 127.0.0.1 -U bench -c 4 -j 2 -T 3 -P 1 fbfix
