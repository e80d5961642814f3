# version: HammerDB CLI v4.12 (TPC-Council/HammerDB tag v4.12, from /work/shared/peers/hammerdb-4.12-src.tar.gz) on Tcl 8.6, Pgtcl 3.1.0 / mysqltcl 3.052; server PostgreSQL 15.18 (private cluster on 127.0.0.1:5436)
# captured: 2026-11-25T18:02:52Z on x86_64, 2 cores, client and server on one host, while other benchmarks shared the cores (figures low); by /work/shared/peers/recipes/E-hammerdb.sh with OUT=/tmp/hdb-out; pg_build.out = stdout and stderr together (2>&1); a schema build: no TEST RESULT, refused as no run
cd $H && TMP=$W/tmp TCLLIBPATH=$H/lib timeout 400 ./hammerdbcli auto pg_build.tcl > pg_build.out 2>&1
# pg_build.tcl:
#   dbset db pg
#   dbset bm TPC-C
#   diset connection pg_host 127.0.0.1
#   diset connection pg_port 5436
#   diset connection pg_sslmode disable
#   diset tpcc pg_count_ware 1
#   diset tpcc pg_num_vu 1
#   diset tpcc pg_superuser postgres
#   diset tpcc pg_superuserpass postgres
#   diset tpcc pg_defaultdbase postgres
#   diset tpcc pg_user tpcc
#   diset tpcc pg_pass tpcc
#   diset tpcc pg_dbase tpcc
#   diset tpcc pg_storedprocs false
#   diset tpcc pg_partition false
#   buildschema
#   puts "SCHEMA BUILD COMPLETED"
