# version: mysqlslap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64); server MariaDB 10.11.19 on 127.0.0.1:3307; password from MYSQL_PWD
# captured: 2026-11-22T11:47:55Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
mysqlslap --host=127.0.0.1 --port=3307 --user=sb --auto-generate-sql --auto-generate-sql-load-type=read --concurrency=1,4 --iterations=2 --number-of-queries=200
