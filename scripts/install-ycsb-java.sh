#!/usr/bin/env bash
# scripts/install-ycsb-java.sh DIR — build Java YCSB 0.18.0-SNAPSHOT (commit
# d9faaac8 of brianfrankcooper/YCSB: core and the jdbc, redis and mongodb
# bindings, with the PostgreSQL JDBC driver next to the jdbc binding) into
# DIR/ycsb-java, unless DIR already holds that version
# (DIR/ycsb-java.version). Prints the path of its launcher,
# DIR/ycsb-java/bin/ycsb.sh, on stdout; progress and errors go to stderr.
#
# Bench-only (bench/ycsb.sh): CI does not call it. Java YCSB is not a study
# tool; fairbench imports its reports (internal/adapter/ycsbjava.go).
#
# No registry serves a YCSB build with these bindings, so it is built with
# Maven from its source tarball (a git archive of the repository at d9faaac8,
# no top directory), found in this order:
#   1. $FAIRBENCH_PEERS/ycsb-0.18.0-SNAPSHOT-d9faaac8-src.tar.gz when
#      FAIRBENCH_PEERS is set (and only there);
#   2. third_party/peers/ in this repository;
#   3. ../shared/peers/ beside the repository (the project machines' copy).
# Its SHA-256 is checked before the build. Maven fetches the dependencies from
# Maven Central (~55 MB into ~/.m2 from an empty local repository; ~30-40 s
# on 2 cores). Java (a JDK, 11 or later) and Maven are installed through
# scripts/apt.sh when missing.
#
# Gotcha (recipe A): the mongodb binding depends on
# com.allanbank:mongodb-async-driver:2.0.1, which is not on Maven Central (only
# on allanbank.com over plain http, which Maven blocks). The script drops the
# async client (site.ycsb.db.AsyncMongoDbClient, "mongodb-async") with that
# dependency and its repository; the sync client ("mongodb",
# org.mongodb:mongodb-driver-sync) is unaffected.
#
# The result is a source-tree layout: bin/ycsb.sh treats DIR/ycsb-java as a
# source checkout because pom.xml is there, and puts each binding's
# target/*.jar and target/dependency/*.jar on the classpath. Run it as
#   DIR/ycsb-java/bin/ycsb.sh run redis -s -P DIR/ycsb-java/workloads/workloada -p redis.host=...
# (bin/ycsb.sh needs python3).
set -euo pipefail

VERSION=0.18.0-SNAPSHOT-d9faaac8
TARBALL=ycsb-$VERSION-src.tar.gz
SHA256=13724a28e7cc4bc495859b514729d3a3666fdfa1d13cb9c6faa63f2d5ee9b57d
PGJDBC=org.postgresql:postgresql:42.7.4
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf 'install-ycsb-java: %s\n' "$*" >&2; }
die() { printf 'install-ycsb-java: ERROR: %s\n' "$*" >&2; exit 1; }

APT_CALLER=install-ycsb-java
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

[ $# -eq 1 ] || die "usage: $0 DIR"
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -x "$dest/ycsb-java/bin/ycsb.sh" ] && [ "$(cat "$dest/ycsb-java.version" 2>/dev/null)" = "$VERSION" ]; then
    log "Java YCSB $VERSION already in $dest"
    echo "$dest/ycsb-java/bin/ycsb.sh"
    exit 0
fi

# shellcheck source=scripts/peer-tarball.sh
. "$REPO_ROOT/scripts/peer-tarball.sh"
tarball=$(find_tarball "$TARBALL" "$SHA256")

# Java and Maven: only what is missing is installed (no apt-get update, nor
# network, on a machine that has both).
missing=()
command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi
command -v java >/dev/null 2>&1 || die "java not found after installing ${missing[*]}"
command -v javac >/dev/null 2>&1 || die "javac not found (a JDK, not only a JRE, is needed to build YCSB)"
command -v mvn >/dev/null 2>&1 || die "mvn not found after installing ${missing[*]}"
jv=$(java -version 2>&1 | head -n 1)
log "using $jv; $(mvn -v 2>/dev/null | head -n 1 | sed 's/\x1b\[[0-9;]*m//g')"

work=$(mktemp -d "$dest/.ycsb-java-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
src="$work/ycsb-java"
mkdir -p "$src"
log "building Java YCSB $VERSION into $dest/ycsb-java (from $tarball)"
start=$(date +%s)
tar -xzf "$tarball" -C "$src" || die "$tarball: cannot unpack"
[ -f "$src/pom.xml" ] && [ -f "$src/bin/ycsb.sh" ] || die "$tarball: no pom.xml and bin/ycsb.sh at its top: not the YCSB source tarball"
grep -q '<version>0.18.0-SNAPSHOT</version>' "$src/pom.xml" || die "$tarball: pom.xml is not YCSB 0.18.0-SNAPSHOT"

# The mongodb binding without its async client (see the gotcha above).
rm -f "$src/mongodb/src/main/java/site/ycsb/db/AsyncMongoDbClient.java" \
    "$src/mongodb/src/test/java/site/ycsb/db/AsyncMongoDbClientTest.java"
python3 - "$src/mongodb/pom.xml" <<'PY' || die "cannot patch mongodb/pom.xml"
import re, sys
p = sys.argv[1]
s = open(p).read()
s2 = re.sub(r'\s*<dependency>\s*<groupId>com.allanbank</groupId>.*?</dependency>', '', s, flags=re.S)
s2 = re.sub(r'\s*<repositories>.*?</repositories>', '', s2, flags=re.S)
if s2 == s or 'allanbank' in s2:
    sys.exit("mongodb/pom.xml: the com.allanbank dependency was not found or not removed")
open(p, 'w').write(s2)
PY

buildlog="$work/build.log"
step() {
    local what=$1; shift
    (cd "$src" && "$@") >>"$buildlog" 2>&1 || {
        tail -n 40 "$buildlog" >&2
        die "$what failed (last lines of the build log above)"
    }
}
# -Psource-run copies each module's runtime dependencies into target/dependency,
# where bin/ycsb.sh looks for them.
step "mvn package" mvn -B -q -Psource-run -pl site.ycsb:jdbc-binding,site.ycsb:redis-binding,site.ycsb:mongodb-binding -am clean package -DskipTests
step "mvn dependency:copy $PGJDBC" mvn -B -q dependency:copy -Dartifact=$PGJDBC -DoutputDirectory="$src/jdbc/target/dependency"
ls "$src"/core/target/core-*.jar "$src"/jdbc/target/jdbc-binding-*.jar "$src"/redis/target/redis-binding-*.jar \
    "$src"/mongodb/target/mongodb-binding-*.jar "$src"/jdbc/target/dependency/postgresql-*.jar >/dev/null 2>&1 \
    || die "the build left no core, jdbc, redis or mongodb binding jar, or no PostgreSQL driver"

# Smoke test: core's BasicDB through the launcher, the way bench/ycsb.sh runs it.
out=$(cd "$src" && timeout 120 bin/ycsb.sh run basic -P workloads/workloada -p recordcount=10 -p operationcount=10 -p basicdb.verbose=false 2>&1) \
    || { printf '%s\n' "$out" | tail -n 20 >&2; die "the built YCSB does not run (bin/ycsb.sh run basic)"; }
printf '%s\n' "$out" | grep -q '^\[OVERALL\], Throughput(ops/sec), ' || { printf '%s\n' "$out" | tail -n 20 >&2; die "the built YCSB printed no report"; }

# Only what running needs: the source tree minus the build's intermediate
# files would do, but the whole tree is small (~60 MB with the dependencies).
rm -rf "$dest/ycsb-java.old"
[ -e "$dest/ycsb-java" ] && mv "$dest/ycsb-java" "$dest/ycsb-java.old"
mv "$src" "$dest/ycsb-java"
rm -rf "$dest/ycsb-java.old"
echo "$VERSION" >"$dest/ycsb-java.version"
log "Java YCSB $VERSION built in $(($(date +%s) - start)) s"
echo "$dest/ycsb-java/bin/ycsb.sh"
