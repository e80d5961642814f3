# version: YCSB 0.17.0 core only (Maven Central site.ycsb:core:0.17.0, core-0.17.0.jar sha256 e1c64d09bfc642715428c2e53ec129b0a98a0e634ee32bf0ae77e5b4eebb3cda, with its dependencies HdrHistogram 2.1.4, htrace-core4 4.1.0-incubating, jackson-*-asl 1.9.4 from mvn dependency:copy-dependencies into lib/); OpenJDK 17.0.15 (Debian 12)
# database binding: site.ycsb.BasicDB (core's no-op test DB; basicdb.simulatedelay=N sleeps a random 0..N-1 ms per operation, basicdb.randomizedelay at its default true) — the final report and status lines are written by core's measurement code whatever the binding
# load phase (-load): INSERT only, default measurementtype, no status lines
# captured: 2026-11-22T13:33:10Z on x86_64, 2 cores, Debian 12.11; file = stdout and stderr together (2>&1)
cd /tmp/ycsbjava && java -cp 'lib/*' site.ycsb.Client -load -db site.ycsb.BasicDB -p workload=site.ycsb.workloads.CoreWorkload -p recordcount=4000 -p basicdb.verbose=false -p basicdb.simulatedelay=2 -threads 2
