# version: mysqlslap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64); server MariaDB 10.11.19-MariaDB-0+deb12u1 on 127.0.0.1:3306; password from MYSQL_PWD
# captured: 2026-11-27T13:01:20Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
mysqlslap --host=127.0.0.1 --port=3306 --user=bench --create-schema=fbtest_pairing_slap --auto-generate-sql --auto-generate-sql-load-type=mixed --engine=innodb --concurrency=2 --number-of-queries=200 --iterations=2
