# version: sysbench 1.0.20; server MariaDB 10.11.19 on 127.0.0.1:3307; password from the MYSQL_PWD environment variable
# captured: 2026-11-22T11:47:21Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3307 --mysql-user=sb --mysql-db=sbtest --tables=2 --table-size=10000 --threads=4 --time=4 --report-interval=1 run
