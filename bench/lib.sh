# bench/lib.sh — what the bench scripts share. Sourced (never run) as the first
# thing a script does:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# It turns on strict mode and the C locale (awk's numbers and sort orders must
# not depend on the caller's locale), moves to the project root and sets ROOT.
# Errors name the script that sourced it.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH_NAME=$(basename "$0")

die() { printf '%s: ERROR: %s\n' "$BENCH_NAME" "$*" >&2; exit 1; }
# as_root and apt_install, shared with scripts/test-servers.sh.
APT_CALLER=$BENCH_NAME
# shellcheck source=scripts/apt.sh
. scripts/apt.sh

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_positive() { is_uint "$1" && [ "$1" -gt 0 ]; }

# require_positive VAR... — each named variable holds a whole number > 0.
require_positive() {
    local v
    for v; do
        is_positive "${!v}" || die "$v must be a whole number > 0 (got '${!v}')"
    done
}

# start_test_servers — the local PostgreSQL and MariaDB of the tests, started
# if they are not running (scripts/test-servers.sh), with their URLs in .test-env.
start_test_servers() {
    bash scripts/test-servers.sh >/dev/null || die "scripts/test-servers.sh failed"
}

# test_env KEY — prints KEY from .test-env (after start_test_servers).
test_env() {
    local v
    v=$(set -a && . ./.test-env && printf '%s' "${!1:-}")
    [ -n "$v" ] || die ".test-env has no $1"
    printf '%s' "$v"
}

# redact URL — the URL with its password replaced by ***, for what a script prints.
redact() { sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#; s#(password=)[^& ]*#\1***#g' <<<"$1"; }

# start_private_redis PORT DIR — a redis-server of the script's own on
# 127.0.0.1:PORT (no persistence; its pid file and log in DIR), for cells that
# flush or fill a whole database; sets REDIS_PID, which the caller stops.
start_private_redis() {
    local port=$1 dir=$2
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server
    command -v redis-cli >/dev/null 2>&1 || apt_install redis-tools
    if redis-cli -p "$port" ping >/dev/null 2>&1; then
        die "something already listens on 127.0.0.1:$port: set REDIS_PORT to a free port (the script starts its own Redis there)"
    fi
    mkdir -p "$dir"
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize yes \
        --pidfile "$dir/redis.pid" --dir "$dir" --logfile "$dir/redis.log" || die "redis-server did not start"
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    REDIS_PID=$(cat "$dir/redis.pid")
}

# start_private_postgres PORT DIR [SETTING=VALUE ...] — a PostgreSQL cluster of the
# script's own on 127.0.0.1:PORT (initdb into DIR/data, trust on loopback, its
# socket and log in DIR; each SETTING passed to the server as -c), for cells that
# need more connections than the shared test server has to spare. Sets
# PRIVATE_PG_URL (role bench, which may create databases) and PRIVATE_PG_DIR;
# the caller stops it with stop_private_postgres.
start_private_postgres() {
    local port=$1 dir=$2 bin opts s; shift 2
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -x "$bin/initdb" ] || start_test_servers   # installs PostgreSQL's Debian packages
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -x "$bin/initdb" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
        die "something already listens on 127.0.0.1:$port: set PG_PORT to a free port (the script starts its own PostgreSQL there)"
    fi
    mkdir -p "$dir"
    # the server refuses to run as root: the cluster belongs to the postgres user then
    as_pg_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_pg_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
        || die "initdb failed: see $dir/initdb.log"
    opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir"
    for s in "$@"; do opts+=" -c $s"; done
    as_pg_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 300 start >/dev/null \
        || die "the private PostgreSQL did not start: see $dir/server.log"
    PRIVATE_PG_DIR=$dir PRIVATE_PG_BIN=$bin
    psql -Xq "postgres://postgres@127.0.0.1:$port/postgres" -c "CREATE ROLE bench LOGIN CREATEDB PASSWORD 'bench'" \
        || die "could not create role bench on the private PostgreSQL"
    PRIVATE_PG_URL="postgres://bench:bench@127.0.0.1:$port/postgres?sslmode=disable"
}
# stop_private_postgres — stops the cluster start_private_postgres started, if any.
stop_private_postgres() {
    [ -n "${PRIVATE_PG_DIR:-}" ] || return 0
    as_pg_owner "$PRIVATE_PG_BIN/pg_ctl" -D "$PRIVATE_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    PRIVATE_PG_DIR=
}
