#!/usr/bin/env bash
# scripts/install-osb.sh [DIR] — install OpenSearch Benchmark 2.4.0 (the tool
# behind `tool = "opensearch-benchmark"` study cells of kind bulkindex, and
# bench/osb.sh's peer) into a Python venv DIR/osb-2.4.0 [DIR: .bin/ of this
# repository], unless DIR already holds it (DIR/osb-2.4.0/fairbench-install.version).
# Prints the path of its opensearch-benchmark on stdout (put its directory on
# the PATH, or give it to the integration test as FAIRBENCH_TEST_OSB);
# progress and errors go to stderr.
#
# OSB is a Python program published on PyPI: `pip install
# opensearch-benchmark==2.4.0` into a fresh venv, through pip's ordinary
# index (or PIP_INDEX_URL / PIP_FIND_LINKS as the caller sets them). The venv
# needs Python 3 with venv and ensurepip: PYTHON [python3] when it has them,
# else Debian's python3 with python3-venv, installed through scripts/apt.sh.
# A venv is not relocatable (its scripts name their interpreter by path), so
# it is made in place; the version file is written last, and a directory
# without it is removed and made again. About 3 minutes on 2 cores (pip
# resolves and installs some 90 packages, ~500 MB), nothing when already there.
set -euo pipefail

VERSION=2.4.0
STAMP="opensearch-benchmark $VERSION"
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf 'install-osb: %s\n' "$*" >&2; }
die() { printf 'install-osb: ERROR: %s\n' "$*" >&2; exit 1; }

APT_CALLER=install-osb
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

[ $# -le 1 ] || die "usage: $0 [DIR]"
dest=${1:-$REPO_ROOT/.bin}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
V=$dest/osb-$VERSION
BIN=$V/bin/opensearch-benchmark
if [ -x "$BIN" ] && [ "$(cat "$V/fairbench-install.version" 2>/dev/null)" = "$STAMP" ]; then
    log "OpenSearch Benchmark $VERSION already in $V"
    echo "$BIN"
    exit 0
fi

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1 || ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    log "$PY has no venv/ensurepip: installing Debian's python3-venv"
    apt_install python3 python3-venv
    PY=/usr/bin/python3
    "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1 || die "$PY still has no venv/ensurepip after installing python3-venv"
fi

start=$(date +%s)
rm -rf "$V"
log "creating a venv in $V ($("$PY" --version 2>&1))"
"$PY" -m venv "$V" >&2 || die "$PY -m venv $V failed"
log "pip install opensearch-benchmark==$VERSION"
pip_log=$(mktemp)
trap 'rm -f "$pip_log"' EXIT
"$V/bin/python" -m pip install --disable-pip-version-check -q "opensearch-benchmark==$VERSION" >"$pip_log" 2>&1 || {
    tail -n 40 "$pip_log" >&2
    die "pip install opensearch-benchmark==$VERSION failed (last lines above)"
}
[ -x "$BIN" ] || die "$BIN missing after pip install"
# It prints "opensearch-benchmark 2.4.0".
got=$("$BIN" --version 2>/dev/null | tail -n 1)
[ "$got" = "opensearch-benchmark $VERSION" ] || die "$BIN --version says \"$got\", expected opensearch-benchmark $VERSION"
echo "$STAMP" >"$V/fairbench-install.version"
log "OpenSearch Benchmark $VERSION installed in $(($(date +%s) - start)) s"
echo "$BIN"
