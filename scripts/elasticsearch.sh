#!/usr/bin/env bash
# scripts/elasticsearch.sh — Elasticsearch single-node clusters on loopback,
# for the integration tests (scripts/test-servers.sh) and the benches.
#
#   scripts/elasticsearch.sh install VERSION
#   scripts/elasticsearch.sh start NAME VERSION HTTP_PORT [HEAP] [secure CA CERT KEY USER PASSWORD]
#   scripts/elasticsearch.sh stop NAME
#
# install: Maven from Debian's packages when missing (scripts/apt.sh), then
# Elasticsearch VERSION (8.x, 9.x) from Maven Central: the integ-test-zip
# distribution (org.elasticsearch.distribution.integ-test-zip:elasticsearch:
# VERSION:zip, ~95 MB) into Maven's repository .bin/maven-repo (ignored by
# git), unpacked into STATE/dist/elasticsearch-VERSION (outside the clone, so
# that the nodes' user can read it wherever the clone lives). A second run
# takes about a second. That distribution is a real node with the modules
# transport-netty4, x-pack-core, x-pack-security and apm only: no rest-root
# module (GET / answers 405), no ingest, no extra analysis.
#
# start: one node (-Xms/-Xmx HEAP, 512m by default) on 127.0.0.1, http on
# HTTP_PORT and transport on HTTP_PORT+100, cluster fairbench-NAME, node NAME,
# discovery single-node, disk watermarks off. It runs on a JDK 21 or later
# (scripts/jdk.sh: Temurin 25 on the project's machines; Elasticsearch 9
# needs 21) as the user fairbench-es when run as root (Elasticsearch refuses
# root; the user is created when missing), else as the caller. Without
# "secure" security is off and http is plain. With "secure": security on,
# https with the certificate CERT and key KEY (PEM; signed by CA, which the
# health check verifies), and USER, a superuser with PASSWORD in the file
# realm (created with bin/elasticsearch-users, as an administrator would).
# State in /var/lib/fairbench-test/elasticsearch/NAME/ (.bin/elasticsearch-state/
# when that cannot be written; ES_STATE overrides): node.pid, node.cmd (what
# the node runs with), node.log (the launcher's output), config/, data/ and
# logs/ (the node's log: logs/fairbench-NAME.log), all wiped at every start:
# each start is a fresh, empty cluster. Waits until the cluster is yellow or
# green (at most ES_START_TIMEOUT s, 600 by default: the four search nodes of
# test-servers starting at once on a busy 2-core machine took over 240 s; a node
# that dies fails at once; on failure the last lines of the logs are shown and
# the node is stopped), then prints
# http://127.0.0.1:HTTP_PORT (https:// when secure) on stdout. When the node
# NAME already runs with the same version and settings and answers healthy,
# start is a no-op.
#
# stop: SIGTERM to the node NAME (the node closes itself), SIGKILL after 30 s.
#
# Progress and errors go to stderr. Run as root on Debian 12.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ES_M2=$REPO_ROOT/.bin/maven-repo
if [ -z "${ES_STATE:-}" ]; then
    ES_STATE=${KV_STATE:-/var/lib/fairbench-test}/elasticsearch
    mkdir -p "$ES_STATE" 2>/dev/null || ES_STATE=$REPO_ROOT/.bin/elasticsearch-state
fi
ES_HOST=127.0.0.1
ES_START_TIMEOUT=${ES_START_TIMEOUT:-600}
ES_DEFAULT_HEAP=512m
ES_RUN_USER=fairbench-es
# The Maven plugin is pinned: otherwise its version depends on the Maven release.
MVN_DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1

LOG_TAG=elasticsearch
log() { printf '%s: %s\n' "$LOG_TAG" "$*" >&2; }
die() { printf '%s: ERROR: %s\n' "$LOG_TAG" "$*" >&2; exit 1; }

APT_CALLER=elasticsearch
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"
# shellcheck source=scripts/jdk.sh
. "$REPO_ROOT/scripts/jdk.sh"

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

check_version() {
    [[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION '$1': an Elasticsearch release such as 9.1.0"
}

# ------------------------------------------------------------------ install

# es_install VERSION [quiet] — the distribution unpacked in $ES_STATE/dist;
# quiet (from start): no closing line when all was there.
es_install() {
    local v=$1 zip dist stamp want tmp
    check_version "$v"
    command -v mvn >/dev/null 2>&1 || apt_install maven
    command -v unzip >/dev/null 2>&1 || apt_install unzip
    command -v curl >/dev/null 2>&1 || apt_install curl
    mkdir -p "$ES_STATE/dist" "$ES_M2" || die "cannot create $ES_STATE/dist or $ES_M2"
    dist=$ES_STATE/dist/elasticsearch-$v
    exec 8>"$dist.lock"
    flock -w 900 8 || die "another scripts/elasticsearch.sh install holds $dist.lock"
    zip=$ES_M2/org/elasticsearch/distribution/integ-test-zip/elasticsearch/$v/elasticsearch-$v.zip
    if [ ! -s "$zip" ]; then
        log "fetching Elasticsearch $v (integ-test-zip) from Maven Central into $ES_M2"
        # One Maven at a time in the shared repository (the OpenSearch installs use it too).
        if ! flock -w 900 "$ES_M2/.fairbench-mvn.lock" mvn -B -q -Dmaven.repo.local="$ES_M2" \
            "$MVN_DEPENDENCY_PLUGIN:get" -Dtransitive=false \
            -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$v:zip" >"$ES_STATE/dist/mvn-$v.log" 2>&1; then
            tail -n 30 "$ES_STATE/dist/mvn-$v.log" >&2
            die "mvn dependency:get of Elasticsearch $v failed (last lines of $ES_STATE/dist/mvn-$v.log above; is $v released?)"
        fi
        [ -s "$zip" ] || die "Maven reported success but $zip is missing"
    fi
    stamp=$dist/.fairbench-stamp
    # Its size: the same in every clone's repository (a path or a time would not be).
    want="elasticsearch-$v.zip $(stat -c %s "$zip") bytes"
    if [ ! -x "$dist/bin/elasticsearch" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        log "unpacking $zip into $dist"
        rm -rf "$dist" "$ES_STATE/dist/.unpack-$v".*
        tmp=$(mktemp -d "$ES_STATE/dist/.unpack-$v.XXXXXX")
        unzip -q "$zip" -d "$tmp" || { rm -rf "$tmp"; die "unzip $zip failed (remove it to fetch it again)"; }
        [ -x "$tmp/elasticsearch-$v/bin/elasticsearch" ] || { rm -rf "$tmp"; die "$zip holds no elasticsearch-$v/bin/elasticsearch"; }
        printf '%s\n' "$want" >"$tmp/elasticsearch-$v/.fairbench-stamp"
        chmod -R a+rX "$tmp/elasticsearch-$v"
        mv "$tmp/elasticsearch-$v" "$dist"
        rmdir "$tmp"
        [ "${2:-}" = quiet ] || log "Elasticsearch $v installed in $dist"
    elif [ "${2:-}" != quiet ]; then
        log "Elasticsearch $v already installed in $dist"
    fi
    exec 8>&-
}

# -------------------------------------------------------------- start, stop

port_open() { (exec 3<>"/dev/tcp/$ES_HOST/$1") 2>/dev/null; }

# run_as_node_user DIR CMD... — CMD as the user the nodes run as, in the
# node's directory DIR (jvm.options writes logs/gc.log relative to it).
run_as_node_user() {
    local dir=$1
    shift
    if [ "$(id -u)" -eq 0 ]; then
        (cd "$dir" && runuser -u "$ES_RUN_USER" -- "$@")
    else
        (cd "$dir" && "$@")
    fi
}

ensure_node_user() {
    [ "$(id -u)" -eq 0 ] || return 0
    id "$ES_RUN_USER" >/dev/null 2>&1 && return 0
    log "creating the system user $ES_RUN_USER (Elasticsearch refuses to run as root)"
    # Two nodes start in parallel: the other may create the user between the
    # check above and useradd, so a failed useradd is fine once the user exists.
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_RUN_USER" \
        || id "$ES_RUN_USER" >/dev/null 2>&1 || die "useradd $ES_RUN_USER failed"
}

# es_healthy NAME PORT SCHEME [CURL-ARGS...] — the node on PORT is cluster
# fairbench-NAME, yellow or green.
es_healthy() {
    local name=$1 port=$2 scheme=$3 h
    shift 3
    h=$(curl -s -m 5 "$@" "$scheme://$ES_HOST:$port/_cluster/health" 2>/dev/null) || return 1
    [[ $h == *'"cluster_name":"fairbench-'"$name"'"'* ]] && [[ $h =~ \"status\":\"(green|yellow)\" ]]
}

# es_pid NAME — the pid of the node NAME this script started, if it runs
# (the pid in node.pid is a java whose command line names the node).
es_pid() {
    local pid
    pid=$(cat "$ES_STATE/$1/node.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF -- "-Dfairbench.elasticsearch.node=$1" || return 1
    echo "$pid"
}

es_log_tail() {
    local f
    for f in "$ES_STATE/$1/node.log" "$ES_STATE/$1/logs/fairbench-$1.log"; do
        [ -s "$f" ] && { echo "--- last lines of $f:" >&2; tail -n 30 "$f" >&2; }
    done
    return 0
}

es_stop_node() {
    local pid i
    pid=$(es_pid "$1") || return 0
    log "stopping node $1 (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do
        es_pid "$1" >/dev/null || { rm -f "$ES_STATE/$1/node.pid"; return 0; }
        sleep 0.1
    done
    log "node $1 (pid $pid) ignored SIGTERM for 30 s: killing it"
    kill -9 "$pid" 2>/dev/null || true
    sleep 0.5
    rm -f "$ES_STATE/$1/node.pid"
}

check_name() {
    [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "node name '$1': letters, digits, _ . - only"
}

es_start() {
    [ $# -ge 3 ] || usage
    local name=$1 v=$2 port=$3 heap=$ES_DEFAULT_HEAP secure=0 ca='' cert='' key='' user='' password=''
    shift 3
    check_name "$name"
    check_version "$v"
    LOG_TAG="elasticsearch[$name]"
    [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1024 ] && [ "$port" -le 65435 ] || die "HTTP_PORT '$port': a port number 1024-65435"
    if [ $# -gt 0 ] && [ "$1" != secure ]; then
        heap=$1
        shift
    fi
    [[ $heap =~ ^[0-9]+[kKmMgG]?$ ]] || die "HEAP '$heap': a JVM heap size such as 512m or 1g"
    if [ $# -gt 0 ]; then
        [ "$1" = secure ] && [ $# -eq 6 ] || usage
        secure=1 ca=$2 cert=$3 key=$4 user=$5 password=$6
        local f
        for f in "$ca" "$cert" "$key"; do [ -s "$f" ] || die "secure: $f is not a readable PEM file"; done
        [[ $user =~ ^[A-Za-z0-9_.-]+$ ]] || die "secure: user '$user': letters, digits, _ . - only"
        [ ${#password} -ge 6 ] || die "secure: the password must have 6 characters or more (Elasticsearch's rule)"
    fi
    local transport=$((port + 100)) scheme=http curl_args=()
    if [ "$secure" -eq 1 ]; then
        scheme=https
        curl_args=(--cacert "$ca" -u "$user:$password")
    fi

    es_install "$v" quiet
    ensure_node_user
    local jdk dir=$ES_STATE/$name dist=$ES_STATE/dist/elasticsearch-$v pid want i t0 yml
    jdk=$(find_jdk 21)
    mkdir -p "$dir" || die "cannot create $dir"
    exec 7>"$dir/.lock"
    flock -w 300 7 || die "another scripts/elasticsearch.sh holds $dir/.lock"

    yml="cluster.name: fairbench-$name
node.name: $name
network.host: $ES_HOST
http.port: $port
transport.port: $transport
discovery.type: single-node
path.data: $dir/data
path.logs: $dir/logs
# A nearly full disk must not turn the cluster red or the indexes read-only.
cluster.routing.allocation.disk.threshold_enabled: false
xpack.security.enabled: $([ "$secure" -eq 1 ] && echo true || echo false)"
    if [ "$secure" -eq 1 ]; then
        yml+="
xpack.security.http.ssl.enabled: true
xpack.security.http.ssl.certificate: certs/node.crt
xpack.security.http.ssl.key: certs/node.key
xpack.security.http.ssl.certificate_authorities: [certs/ca.crt]
xpack.security.authc.api_key.enabled: true"
    fi
    # What the node runs with: a change of any of it restarts the node.
    want=$(printf '%s\n' "$dist $(cat "$dist/.fairbench-stamp")" "$jdk" "heap $heap" "$yml" \
        "user $user $(printf '%s' "$password" | sha256sum | cut -c1-16)" \
        "tls $(cat "$ca" "$cert" "$key" 2>/dev/null | sha256sum | cut -c1-16)")
    if pid=$(es_pid "$name"); then
        if [ "$(cat "$dir/node.cmd" 2>/dev/null)" = "$want" ] && es_healthy "$name" "$port" "$scheme" "${curl_args[@]}"; then
            log "already running on $ES_HOST:$port (pid $pid)"
            echo "$scheme://$ES_HOST:$port"
            return 0
        fi
        log "node (pid $pid) runs with other settings or is not healthy: restarting it"
        es_stop_node "$name"
    fi
    port_open "$port" && die "$ES_HOST:$port is taken by a process this script did not start (not the pid in $dir/node.pid); free the port"
    port_open "$transport" && die "$ES_HOST:$transport (transport) is taken by another process; free the port"

    rm -rf "$dir/config" "$dir/data" "$dir/logs" "$dir/tmp" "$dir/node.pid"
    mkdir -p "$dir/data" "$dir/logs" "$dir/tmp"
    cp -r "$dist/config" "$dir/config"
    printf '%s\n' "$yml" >"$dir/config/elasticsearch.yml"
    # jvm.options names the GC log, error file and heap dumps relative to a
    # working directory that differs between releases: make them the node's.
    sed -i -e "s#file=\(logs/\)\{0,1\}gc\.log#file=$dir/logs/gc.log#" \
        -e "s#ErrorFile=\(logs/\)\{0,1\}hs_err#ErrorFile=$dir/logs/hs_err#" \
        -e "s#HeapDumpPath=data#HeapDumpPath=$dir/data#" "$dir/config/jvm.options"
    if [ "$secure" -eq 1 ]; then
        # The node reads its key and certificates from its config directory only.
        mkdir -p "$dir/config/certs"
        cp "$ca" "$dir/config/certs/ca.crt"
        cp "$cert" "$dir/config/certs/node.crt"
        cp "$key" "$dir/config/certs/node.key"
        chmod 0600 "$dir/config/certs/node.key"
    fi
    [ "$(id -u)" -eq 0 ] && chown -R "$ES_RUN_USER" "$dir"
    chmod 0700 "$dir/config"
    printf '%s\n' "$want" >"$dir/node.cmd"
    local env=(env "ES_JAVA_HOME=$jdk" "ES_PATH_CONF=$dir/config" "ES_TMPDIR=$dir/tmp"
        "ES_JAVA_OPTS=-Xms$heap -Xmx$heap -Dfairbench.elasticsearch.node=$name")
    if [ "$secure" -eq 1 ]; then
        run_as_node_user "$dir" "${env[@]}" "$dist/bin/elasticsearch-users" useradd "$user" -p "$password" -r superuser \
            >"$dir/node.log" 2>&1 || { es_log_tail "$name"; die "bin/elasticsearch-users useradd $user failed"; }
    fi
    log "starting Elasticsearch $v on $scheme://$ES_HOST:$port (heap $heap, security $([ "$secure" -eq 1 ] && echo "on, user $user" || echo off), $jdk)"
    t0=$(date +%s)
    # -d: the launcher returns once the node has started (or failed), and
    # the node runs on without it; -p: the node writes its pid. fd 7 (the
    # lock) is not inherited.
    if ! run_as_node_user "$dir" "${env[@]}" timeout "$ES_START_TIMEOUT" "$dist/bin/elasticsearch" -d -p "$dir/node.pid" \
        >>"$dir/node.log" 2>&1 </dev/null 7>&-; then
        es_log_tail "$name"
        es_stop_node "$name"
        die "the node did not start (logs above: $dir/node.log, $dir/logs/)"
    fi
    for ((i = 0; i < ES_START_TIMEOUT * 2; i++)); do
        if es_healthy "$name" "$port" "$scheme" "${curl_args[@]}"; then
            log "ready on $scheme://$ES_HOST:$port after $(($(date +%s) - t0)) s (pid $(cat "$dir/node.pid"), heap $heap, cluster fairbench-$name)"
            echo "$scheme://$ES_HOST:$port"
            return 0
        fi
        es_pid "$name" >/dev/null || { es_log_tail "$name"; die "the node exited during its start (logs: $dir/node.log, $dir/logs/)"; }
        sleep 0.5
    done
    es_log_tail "$name"
    es_stop_node "$name"
    die "the node is not yellow on $ES_HOST:$port after $ES_START_TIMEOUT s (logs: $dir/node.log, $dir/logs/)"
}

es_stop() {
    [ $# -eq 1 ] || usage
    check_name "$1"
    LOG_TAG="elasticsearch[$1]"
    if ! es_pid "$1" >/dev/null; then
        log "not running"
        return 0
    fi
    es_stop_node "$1"
    log "stopped"
}

[ $# -ge 1 ] || usage
action=$1
shift
case $action in
    install) [ $# -eq 1 ] || usage; es_install "$1" ;;
    start) es_start "$@" ;;
    stop) es_stop "$@" ;;
    *) usage ;;
esac
