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
