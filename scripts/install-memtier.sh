#!/usr/bin/env bash
# scripts/install-memtier.sh DIR — build memtier_benchmark 2.3.0 (the tool
# behind `tool = "memtier_benchmark"` study cells) into DIR/memtier_benchmark,
# unless DIR already holds that version (DIR/memtier_benchmark.version).
# Prints the binary's path on stdout; progress and errors go to stderr.
#
# No package registry serves memtier_benchmark 2.3.0, so it is built from its
# source tarball (RedisLabs/memtier_benchmark, tag 2.3.0, GPLv2), found in
# this order:
#   1. $FAIRBENCH_PEERS/memtier_benchmark-2.3.0.tar.gz when FAIRBENCH_PEERS is
#      set (and only there: a directory given on purpose must hold it);
#   2. third_party/peers/ in this repository (vendored, so that a clean clone
#      on a fresh CI machine builds it without anything beside the clone);
#   3. ../shared/peers/ beside the repository (the project machines' copy).
# Its SHA-256 is checked before the build: a different tarball is refused.
# The build needs Debian's compiler, autotools, libevent, zlib and OpenSSL
# headers, installed through scripts/apt.sh when missing; about 40 s on 2 cores.
set -euo pipefail

VERSION=2.3.0
TARBALL=memtier_benchmark-$VERSION.tar.gz
SHA256=5b9106b81d97870203542e8ccb144607b4eb9a1ac041f4dcb2f7f8e3b3e7c54e
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf 'install-memtier: %s\n' "$*" >&2; }
die() { printf 'install-memtier: ERROR: %s\n' "$*" >&2; exit 1; }

APT_CALLER=install-memtier
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

[ $# -eq 1 ] || die "usage: $0 DIR"
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -x "$dest/memtier_benchmark" ] && [ "$(cat "$dest/memtier_benchmark.version" 2>/dev/null)" = "$VERSION" ]; then
    log "memtier_benchmark $VERSION already in $dest"
    echo "$dest/memtier_benchmark"
    exit 0
fi

# shellcheck source=scripts/peer-tarball.sh
. "$REPO_ROOT/scripts/peer-tarball.sh"
tarball=$(find_tarball "$TARBALL" "$SHA256")

# Only the missing build dependencies are installed, so that a machine that
# has them all needs no apt-get update (nor network).
# libtool: configure.ac calls LT_INIT.
deps=(build-essential autoconf automake libtool pkg-config libevent-dev zlib1g-dev libssl-dev)
missing=()
for p in "${deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "building memtier_benchmark $VERSION into $dest (from $tarball)"
start=$(date +%s)
tar -xzf "$tarball" -C "$work" || die "$tarball: cannot unpack"
src="$work/memtier-src"
[ -f "$src/configure.ac" ] || die "$tarball: no memtier-src/configure.ac inside: not the memtier_benchmark source tarball"
# The build's own chatter goes to a log, shown only when a step fails.
buildlog="$work/build.log"
step() {
    local what=$1; shift
    (cd "$src" && "$@") >>"$buildlog" 2>&1 || {
        tail -n 40 "$buildlog" >&2
        die "$what failed (last lines of the build log above)"
    }
}
step "autoreconf" autoreconf -ivf
step "configure" ./configure
step "make" make -j"$(nproc)"
# It prints "memtier_benchmark v=2.3.0 sha=00000000:0 bits=64 libevent=... openssl=...".
got=$("$src/memtier_benchmark" --version 2>&1 | head -n 1)
case "$got" in
    "memtier_benchmark v=$VERSION "*) ;;
    *) die "the built binary says \"$got\", expected memtier_benchmark $VERSION" ;;
esac
cp "$src/memtier_benchmark" "$dest/memtier_benchmark.tmp"
mv "$dest/memtier_benchmark.tmp" "$dest/memtier_benchmark"
echo "$VERSION" >"$dest/memtier_benchmark.version"
log "memtier_benchmark $VERSION built in $(( $(date +%s) - start )) s"
echo "$dest/memtier_benchmark"
