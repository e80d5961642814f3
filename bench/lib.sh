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
