#!/usr/bin/env bash
# scripts/pgbouncer.sh — a PgBouncer on loopback in front of the test
# PostgreSQL, for the test that the PostgreSQL driver records a connection
# pooler (scripts/test-servers.sh calls it after starting PostgreSQL).
#
#   scripts/pgbouncer.sh start    prints the postgres:// URL through PgBouncer
#   scripts/pgbouncer.sh stop
#
# start: Debian's pgbouncer package when missing (its own service, on
# localhost:6432, is left as the package sets it up), then one PgBouncer of
# this script's own on PGB_HOST:PGB_PORT (127.0.0.1:6439), session pooling,
# every database forwarded to PG_HOST:PG_PORT (127.0.0.1:5432), the role
# bench authenticated by SCRAM from a userlist this script writes; bench is
# one of the console's stats_users, so that the driver can read SHOW VERSION.
# State (pgbouncer.ini, userlist.txt, pgbouncer.pid, pgbouncer.log) in PGB_DIR,
# /var/lib/fairbench-test/pgbouncer by default, owned by the postgres user,
# as which it runs (PgBouncer refuses root). When it already runs with the
# same configuration and lets bench in, start is a no-op; with another
# configuration it is restarted.
#
# stop: SIGTERM to the PgBouncer whose pid is in PGB_DIR/pgbouncer.pid.
#
# Progress and errors go to stderr. Run as root on Debian 12.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'pgbouncer: %s\n' "$*" >&2; }
die() { printf 'pgbouncer: ERROR: %s\n' "$*" >&2; exit 1; }
APT_CALLER=pgbouncer
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

PGB_HOST=127.0.0.1
PGB_PORT=${PGB_PORT:-6439}
PGB_DIR=${PGB_DIR:-/var/lib/fairbench-test/pgbouncer}
PGB_RUN_AS=postgres
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
PGB_ROLE=bench
PGB_PASSWORD=fairbench-test-pw
PGB_DB=bench
PGB_BIN=/usr/sbin/pgbouncer

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# port_open PORT — bash only: no curl or nc on a fresh Debian.
port_open() { (exec 3<>"/dev/tcp/$PGB_HOST/$1") 2>/dev/null; }

# pgb_pid — the pid of the PgBouncer this script started, if it runs.
pgb_pid() {
    local pid exe
    pid=$(cat "$PGB_DIR/pgbouncer.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    [ "${exe% (deleted)}" = "$PGB_BIN" ] || return 1
    echo "$pid"
}

# pgb_login — bench gets in through PgBouncer and reaches PostgreSQL.
pgb_login() {
    PGPASSWORD=$PGB_PASSWORD PGCONNECT_TIMEOUT=5 psql -X -q -At -w \
        "host=$PGB_HOST port=$PGB_PORT dbname=$PGB_DB user=$PGB_ROLE sslmode=disable" \
        -c 'select 1' 2>/dev/null | grep -qx 1
}

pgb_log_tail() {
    [ -s "$PGB_DIR/pgbouncer.log" ] && { log "last lines of $PGB_DIR/pgbouncer.log:"; tail -n 20 "$PGB_DIR/pgbouncer.log" >&2; }
    return 0
}

# config — the pgbouncer.ini this script runs with.
config() {
    cat <<EOF
; written by scripts/pgbouncer.sh; rewritten at every start
[databases]
* = host=$PG_HOST port=$PG_PORT

[pgbouncer]
listen_addr = $PGB_HOST
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $PGB_DIR/userlist.txt
pidfile = $PGB_DIR/pgbouncer.pid
logfile = $PGB_DIR/pgbouncer.log
pool_mode = session
max_client_conn = 200
default_pool_size = 20
stats_users = $PGB_ROLE
; pgbench and JDBC send it at startup
ignore_startup_parameters = extra_float_digits
EOF
}

pgb_stop() {
    local pid i
    pid=$(pgb_pid) || return 0
    log "stopping PgBouncer (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        pgb_pid >/dev/null || return 0
        sleep 0.1
    done
    die "PgBouncer (pid $pid) did not stop within 10 s of SIGTERM"
}

pgb_start() {
    if [ ! -x "$PGB_BIN" ]; then
        apt_install pgbouncer
        [ -x "$PGB_BIN" ] || die "$PGB_BIN not found after installing pgbouncer"
    fi
    command -v psql >/dev/null 2>&1 || die "psql not found (package postgresql-client)"
    id -u "$PGB_RUN_AS" >/dev/null 2>&1 || die "no user $PGB_RUN_AS to run PgBouncer as (installed with PostgreSQL)"
    mkdir -p "$PGB_DIR" || die "cannot create $PGB_DIR"
    chown "$PGB_RUN_AS" "$PGB_DIR"

    local want pid i
    want=$(config)
    if pid=$(pgb_pid); then
        if [ "$(cat "$PGB_DIR/pgbouncer.ini" 2>/dev/null)" = "$want" ] && pgb_login; then
            log "already running on $PGB_HOST:$PGB_PORT (pid $pid)"
            echo "postgres://$PGB_ROLE:$PGB_PASSWORD@$PGB_HOST:$PGB_PORT/$PGB_DB?sslmode=disable"
            return 0
        fi
        log "PgBouncer (pid $pid) runs with another configuration or does not let $PGB_ROLE in: restarting it"
        pgb_stop
    fi
    port_open "$PGB_PORT" && die "$PGB_HOST:$PGB_PORT is taken by a process this script did not start; free it or set PGB_PORT"

    printf '%s\n' "$want" >"$PGB_DIR/pgbouncer.ini"
    printf '"%s" "%s"\n' "$PGB_ROLE" "$PGB_PASSWORD" >"$PGB_DIR/userlist.txt"
    chown "$PGB_RUN_AS" "$PGB_DIR/pgbouncer.ini" "$PGB_DIR/userlist.txt"
    chmod 0600 "$PGB_DIR/userlist.txt"
    rm -f "$PGB_DIR/pgbouncer.pid"
    log "starting $("$PGB_BIN" --version | head -n 1) on $PGB_HOST:$PGB_PORT in front of $PG_HOST:$PG_PORT"
    (cd / && runuser -u "$PGB_RUN_AS" -- "$PGB_BIN" -d "$PGB_DIR/pgbouncer.ini") >&2 \
        || { pgb_log_tail; die "$PGB_BIN -d $PGB_DIR/pgbouncer.ini failed"; }
    for ((i = 0; i < 60; i++)); do
        if pgb_login; then
            log "ready on $PGB_HOST:$PGB_PORT (pid $(pgb_pid || echo ?))"
            echo "postgres://$PGB_ROLE:$PGB_PASSWORD@$PGB_HOST:$PGB_PORT/$PGB_DB?sslmode=disable"
            return 0
        fi
        sleep 0.5
    done
    pgb_log_tail
    die "$PGB_ROLE cannot log in through PgBouncer on $PGB_HOST:$PGB_PORT after 30 s (is PostgreSQL up on $PG_HOST:$PG_PORT?)"
}

[ $# -eq 1 ] || usage
case $1 in
    start) pgb_start ;;
    stop) pgb_stop ;;
    *) usage ;;
esac
