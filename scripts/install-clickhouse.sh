#!/usr/bin/env bash
# scripts/install-clickhouse.sh — the test ClickHouse for the clickhouse://
# driver's integration tests: installed if missing, started on loopback if
# not running, idempotently. Prints two clickhouse:// URLs on stdout, the
# default user's and one with a password (fbuser); progress and errors go to stderr. Run as root on Debian 12.
#
# Debian's clickhouse-server 18.16.1 is the only ClickHouse obtainable here.
# Its package's postinst would enable a service on 8123/9000, so the server
# package is extracted (dpkg -x) rather than installed; clickhouse-common
# (the shared library the server binary links) and clickhouse-client are
# installed normally. The server runs on 9001 (native) and 8124 (HTTP) so as
# never to meet a packaged or another ClickHouse on the default ports.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'install-clickhouse: %s\n' "$*" >&2; }
die() { printf 'install-clickhouse: ERROR: %s\n' "$*" >&2; exit 1; }
APT_CALLER=install-clickhouse
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

CH_HOST=127.0.0.1
CH_PORT=${CH_PORT:-9001}
CH_HTTP_PORT=${CH_HTTP_PORT:-8124}
CH_INTERSERVER_PORT=${CH_INTERSERVER_PORT:-9010}
CH_DIR=${CH_DIR:-/var/lib/fairbench-test/clickhouse}
CH_BIN=$CH_DIR/root/usr/sbin/clickhouse-server
# A user with a password, for the tests that check it never leaks (18.16 has
# no CREATE USER: users live in users.xml).
CH_AUTH_USER=fbuser
CH_AUTH_PASSWORD=fairbench-test-pw

# ch_port_open PORT — bash only: no curl or nc on a fresh Debian.
ch_port_open() { (exec 3<>"/dev/tcp/$CH_HOST/$1") 2>/dev/null; }

# ch_ready — the server answers a query on its native port.
ch_ready() {
    ch_port_open "$CH_PORT" &&
        [ "$(timeout 10 clickhouse-client --host "$CH_HOST" --port "$CH_PORT" -q 'SELECT 1' 2>/dev/null)" = 1 ]
}

# ch_pid — the pid of the server this script started, if it still runs that binary.
ch_pid() {
    local pid exe
    pid=$(cat "$CH_DIR/server.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    # 18.16's clickhouse-server is a symlink to the multi-tool "clickhouse".
    [ "${exe% (deleted)}" = "$(readlink -f "$CH_BIN")" ] || return 1
    echo "$pid"
}

ch_log_tail() {
    local f
    for f in "$CH_DIR/stdout.log" "$CH_DIR/log/clickhouse-server.err.log"; do
        [ -s "$f" ] && { log "last lines of $f:"; tail -n 20 "$f" >&2; }
    done
    return 0
}

install_files() {
    if ! command -v clickhouse-client >/dev/null 2>&1 || ! dpkg -s clickhouse-common >/dev/null 2>&1; then
        apt_install clickhouse-common clickhouse-client
    fi
    command -v clickhouse-client >/dev/null 2>&1 || die "clickhouse-client did not install"
    if [ ! -x "$CH_BIN" ]; then
        mkdir -p "$CH_DIR/debs" || die "cannot create $CH_DIR (run this script as root)"
        log "downloading clickhouse-server (extracted, not installed: its postinst would start a service on 8123/9000)"
        rm -f "$CH_DIR"/debs/clickhouse-server_*.deb
        (cd "$CH_DIR/debs" && apt-get -q download clickhouse-server >&2) || die "apt-get download clickhouse-server failed"
        dpkg -x "$CH_DIR"/debs/clickhouse-server_*.deb "$CH_DIR/root" || die "dpkg -x of the clickhouse-server package failed"
        [ -x "$CH_BIN" ] || die "the clickhouse-server package holds no usr/sbin/clickhouse-server"
    fi
}

write_config() {
    local src=$CH_DIR/root/etc/clickhouse-server tmp
    mkdir -p "$CH_DIR/data" "$CH_DIR/log" || die "cannot create $CH_DIR/data"
    tmp=$(mktemp "$CH_DIR/users.xml.XXXXXX")
    sed -e "0,/<users>/s##<users><$CH_AUTH_USER><password>$CH_AUTH_PASSWORD</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></$CH_AUTH_USER>#" \
        "$src/users.xml" >"$tmp"
    grep -q "<$CH_AUTH_USER>" "$tmp" || die "the packaged users.xml has no <users> section for $CH_AUTH_USER"
    # A running server rereads users.xml by itself.
    mv "$tmp" "$CH_DIR/users.xml"
    tmp=$(mktemp "$CH_DIR/config.xml.XXXXXX")
    # Loopback only (the default config also listens on ::1), our ports,
    # paths under CH_DIR.
    sed -e "s#<http_port>8123</http_port>#<http_port>$CH_HTTP_PORT</http_port>#" \
        -e "s#<tcp_port>9000</tcp_port>#<tcp_port>$CH_PORT</tcp_port>#" \
        -e "s#<interserver_http_port>9009</interserver_http_port>#<interserver_http_port>$CH_INTERSERVER_PORT</interserver_http_port>#" \
        -e 's#<listen_host>::1</listen_host>##' \
        -e "s#<listen_host>127.0.0.1</listen_host>#<listen_host>$CH_HOST</listen_host>#" \
        -e "s#/var/lib/clickhouse/#$CH_DIR/data/#g" -e "s#/var/log/clickhouse-server/#$CH_DIR/log/#g" \
        -e "s#<users_config>users.xml</users_config>#<users_config>$CH_DIR/users.xml</users_config>#" \
        "$src/config.xml" >"$tmp"
    grep -q "<tcp_port>$CH_PORT</tcp_port>" "$tmp" || die "the packaged config.xml has no <tcp_port>9000</tcp_port> to move to $CH_PORT"
    mv "$tmp" "$CH_DIR/config.xml"
}

ch_stop() {
    local pid i
    pid=$(ch_pid) || return 0
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        readlink "/proc/$pid/exe" >/dev/null 2>&1 || return 0
        sleep 0.1
    done
    log "ClickHouse (pid $pid) ignored SIGTERM for 10 s: killing it"
    kill -9 "$pid" 2>/dev/null || true
    sleep 0.2
}

main() {
    local pid i url=clickhouse://default@$CH_HOST:$CH_PORT/default
    local auth_url=clickhouse://$CH_AUTH_USER:$CH_AUTH_PASSWORD@$CH_HOST:$CH_PORT/default
    install_files
    write_config
    if pid=$(ch_pid); then
        if ch_ready; then
            log "ClickHouse already running on $CH_HOST:$CH_PORT (pid $pid)"
            printf '%s\n' "$url" "$auth_url"
            return 0
        fi
        log "ClickHouse (pid $pid) does not answer: restarting it"
        ch_stop
    fi
    ch_port_open "$CH_PORT" && die "$CH_HOST:$CH_PORT is taken by a process this script did not start (not the pid in $CH_DIR/server.pid); free the port"
    log "starting ClickHouse $(dpkg-deb -f "$CH_DIR"/debs/clickhouse-server_*.deb Version 2>/dev/null) on $CH_HOST:$CH_PORT (native), $CH_HTTP_PORT (HTTP)"
    # The server does not daemonize without --daemon and a pid file of the
    # packaged layout; nohup (which execs, so $! is the server) keeps it
    # running after this script is gone.
    nohup "$CH_BIN" --config-file="$CH_DIR/config.xml" >>"$CH_DIR/stdout.log" 2>&1 </dev/null &
    echo $! >"$CH_DIR/server.pid"
    for ((i = 0; i < 300; i++)); do
        ch_ready && break
        ch_pid >/dev/null || { ch_log_tail; die "ClickHouse exited at start"; }
        sleep 0.1
    done
    ch_ready || { ch_log_tail; die "ClickHouse does not answer on $CH_HOST:$CH_PORT after 30 s"; }
    log "ClickHouse $(clickhouse-client --host "$CH_HOST" --port "$CH_PORT" -q 'SELECT version()') ready on $CH_HOST:$CH_PORT"
    printf '%s\n' "$url" "$auth_url"
}

main "$@"
