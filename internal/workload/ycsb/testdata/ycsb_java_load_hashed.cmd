# YCSB Java 0.18.0-SNAPSHOT, brianfrankcooper/YCSB @ d9faaac8 (source tarball
# /work/shared/peers/ycsb-0.18.0-SNAPSHOT-d9faaac8-src.tar.gz), core built with
# mvn -B -q -Psource-run -pl site.ycsb:core -am package -DskipTests
# (OpenJDK 17.0.15, Maven 3.8.7), run from the source tree on 2026-11-25T19:13:20Z:
bin/ycsb.sh load basic -P workloads/workloada -p recordcount=20 -p insertorder=hashed -p basicdb.verbose=true -p threadcount=1 > ycsb_java_load_hashed.out 2>&1
# (-P workloads/workloada because YCSB requires the "workload" property;
#  the load phase inserts key numbers 0..19 in order, one thread.)
