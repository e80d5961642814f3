#!/usr/bin/env bash
# scripts/install-chdb.sh DIR — make DIR/chdb-venv, a Python venv holding
# PyPI's chdb-core at the pinned version (ClickHouse 26.9's engine as a
# library, in-process: no server, no listener), unless DIR already holds that
# version. Prints the venv's python. The modern ClickHouse dialect's checks
# (TestQueriesChdb in internal/workload/ssb and internal/workload/clickbench)
# run scripts/chdb-run.py with it; the test server is 18.16, the only
# ClickHouse Debian has.
#
# The wheel is 181 MB (about a minute to download and install here); it stays
# in DIR, which scripts/test-servers.sh keeps under the ignored .bin/.
set -euo pipefail

VERSION=26.9.0
die() { printf 'install-chdb: ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf 'install-chdb: %s\n' "$*" >&2; }
APT_CALLER=install-chdb
# shellcheck source=scripts/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

[ $# -eq 1 ] || die "usage: install-chdb.sh DIR"
venv=$1/chdb-venv
py=$venv/bin/python
if [ -x "$py" ] && [ "$(cat "$venv/chdb-core.version" 2>/dev/null)" = "$VERSION" ] \
    && "$py" -c 'import chdb' >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi

base=python3
command -v "$base" >/dev/null 2>&1 || { apt_install python3; base=/usr/bin/python3; }
if ! "$base" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt_install python3-venv
    base=/usr/bin/python3
fi
log "making $venv with chdb-core $VERSION from PyPI (a 181 MB wheel)"
rm -rf "$venv"
"$base" -m venv "$venv" || die "$base -m venv $venv failed"
"$venv/bin/pip" install -q --disable-pip-version-check "chdb-core==$VERSION" >&2 \
    || die "pip install chdb-core==$VERSION failed"
got=$("$py" -c 'import chdb; print(chdb.query("SELECT version()", "TSV"))' | tr -d '[:space:]') \
    || die "chdb-core $VERSION does not run here"
log "chdb ready: ClickHouse $got"
echo "$VERSION" >"$venv/chdb-core.version"
echo "$py"
