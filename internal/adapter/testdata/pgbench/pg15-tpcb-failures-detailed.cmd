# version: pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)
# captured: 2026-11-22T11:46:32Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
PGOPTIONS='-c default_transaction_isolation=repeatable\ read' pgbench -h 127.0.0.1 -U bench -c 8 -j 2 --max-tries 5 --failures-detailed -T 3 fbfix
