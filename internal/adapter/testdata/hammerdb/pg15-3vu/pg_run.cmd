# version: HammerDB CLI v4.12 (TPC-Council/HammerDB tag v4.12, from /work/shared/peers/hammerdb-4.12-src.tar.gz) on Tcl 8.6, Pgtcl 3.1.0 / mysqltcl 3.052; server PostgreSQL 15.18 (private cluster on 127.0.0.1:5436, schema built by pg_build.tcl)
# captured: 2026-11-25T18:04:44Z on x86_64, 2 cores, client and server on one host, while other benchmarks shared the cores (figures low); by /work/shared/peers/recipes/E-hammerdb.sh with OUT=/tmp/hdb-out; pg_run.out = stdout and stderr together (2>&1); hdbxtprofile.log is the time profile HammerDB wrote into $TMP during this run
cd $H && TMP=$W/tmp TCLLIBPATH=$H/lib timeout 400 ./hammerdbcli auto pg_run.tcl > pg_run.out 2>&1
# pg_run.tcl:
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
#   diset tpcc pg_driver timed
#   diset tpcc pg_total_iterations 10000000
#   diset tpcc pg_rampup 0.5
#   diset tpcc pg_duration 1
#   diset tpcc pg_vacuum false
#   diset tpcc pg_timeprofile true
#   diset tpcc pg_allwarehouse false
#   diset tpcc pg_raiseerror false
#   diset tpcc pg_keyandthink false
#   loadscript
#   puts "TEST STARTED"
#   vuset vu 3
#   vuset logtotemp 1
#   vucreate
#   set jobid [ lindex [ split [ vurun ] = ] end ]
#   if {![vucomplete]} { _runtimer 150 }
#   after 15000 {set ::hdb_wait 1}; vwait ::hdb_wait
#   vudestroy
#   puts "TEST COMPLETE jobid=$jobid"
#   puts "JOB RESULT:"
#   puts [ jobs $jobid result ]
#   puts "JOB TIMING:"
#   puts [ jobs $jobid timing ]
