#!/bin/bash
# The runs of the ARM-versus-x86 article (seed 001): pgbench's TPC-B-like,
# select-only (-S) and skip-some-updates (-N) scripts at four thread counts,
# sysbench's oltp_read_write, oltp_read_only and oltp_write_only, and
# mysqlslap at four concurrencies.
set -e

pgbench -i -s 100 -h 127.0.0.1 -p 5432 -U bench bench
for t in 1 2 4 8; do pgbench -c $t -j $t -T 60 -h 127.0.0.1 -p 5432 -U bench bench; done
for t in 1 2 4 8; do
    pgbench -c $t -j $t -T 60 -S -h 127.0.0.1 -p 5432 -U bench bench
done
for t in 1 2 4 8
do
    pgbench -c $t -j $t -T 60 -N -h 127.0.0.1 -p 5432 -U bench bench | tee "pgbench-N-$t.log"
done

sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=bench \
    --mysql-password="$MYSQL_PASSWORD" --mysql-db=bench --tables=10 --table-size=100000 prepare
for t in 1 2 4 8; do
    sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=bench \
        --mysql-password="$MYSQL_PASSWORD" --mysql-db=bench --tables=10 --table-size=100000 --threads=$t --time=60 run
    sysbench oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=bench \
        --mysql-password="$MYSQL_PASSWORD" --mysql-db=bench --tables=10 --table-size=100000 --threads=$t --time=60 run
    sysbench oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=bench \
        --mysql-password="$MYSQL_PASSWORD" --mysql-db=bench --tables=10 --table-size=100000 --threads=$t --time=60 run
done

for c in 1 2 4 8; do
    mysqlslap --host=127.0.0.1 --user=bench --concurrency=$c --iterations=3 --number-of-queries=10000 \
        --auto-generate-sql --auto-generate-sql-load-type=mixed --create-schema=fairbench_slap
done
