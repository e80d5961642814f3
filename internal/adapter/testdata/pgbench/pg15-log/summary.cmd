# version: pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)
# captured: 2026-11-22T11:46:46Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
pgbench -h 127.0.0.1 -U bench -S -c 2 -j 2 -R 100 -T 3 -l --log-prefix=pgbench_log fbfix
