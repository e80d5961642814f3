# version: HammerDB CLI v4.12 (TPC-Council/HammerDB tag v4.12, from /work/shared/peers/hammerdb-4.12-src.tar.gz) on Tcl 8.6, mysqltcl 3.052 (dbset db mysql); server MariaDB 10.11.19 (private datadir on 127.0.0.1:3310, through its socket; schema built by my_build.tcl)
# captured: 2026-11-25T18:07:38Z on x86_64, 2 cores, client and server on one host, while other benchmarks shared the cores (figures low); by /work/shared/peers/recipes/E-hammerdb.sh with OUT=/tmp/hdb-out; my_run.out = stdout and stderr together (2>&1); hdbxtprofile.log is the time profile HammerDB wrote into $TMP during this run
cd $H && TMP=$W/tmp TCLLIBPATH=$H/lib timeout 400 ./hammerdbcli auto my_run.tcl > my_run.out 2>&1
# my_run.tcl:
#   dbset db mysql
#   dbset bm TPC-C
#   diset connection mysql_host 127.0.0.1
#   diset connection mysql_port 3310
#   diset connection mysql_socket /tmp/hdb-maria/mysqld.sock
#   diset tpcc mysql_count_ware 1
#   diset tpcc mysql_num_vu 1
#   diset tpcc mysql_user root
#   diset tpcc mysql_pass mysql
#   diset tpcc mysql_dbase tpcc
#   diset tpcc mysql_driver timed
#   diset tpcc mysql_total_iterations 10000000
#   diset tpcc mysql_rampup 0.5
#   diset tpcc mysql_duration 1
#   diset tpcc mysql_timeprofile true
#   diset tpcc mysql_allwarehouse false
#   diset tpcc mysql_raiseerror false
#   diset tpcc mysql_keyandthink false
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
