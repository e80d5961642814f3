#!/usr/bin/env bash
# scripts/install-hammerdb.sh DIR — install HammerDB 4.12's command line
# (hammerdbcli, the tool behind `tool = "hammerdb"` study cells of kind tpcc)
# into DIR/hammerdb-4.12, unless DIR already holds this build
# (DIR/hammerdb-4.12/fairbench-install.version). Prints the directory that
# holds hammerdbcli on stdout (put it on the PATH, or give it to the
# integration test as FAIRBENCH_TEST_HAMMERDB); progress and errors go to
# stderr.
#
# No package registry serves HammerDB, so it is put together from three
# source tarballs (third_party/peers/README.md), found in this order:
#   1. $FAIRBENCH_PEERS when set (and only there);
#   2. third_party/peers/ in this repository;
#   3. ../shared/peers/ beside the repository.
# Each one's SHA-256 is checked before use.
#   - hammerdb-4.12-src.tar.gz: TPC-Council/HammerDB v4.12, the last release
#     on Tcl 8.6 (Debian 12's Tcl; v5 needs Tcl 9), pure Tcl;
#   - ticklecharts-3.2.7-tcl.tar.gz: pure Tcl, hammerdbcli loads it at start;
#   - pgtcl-3.1.0-src.tar.gz: flightaware Pgtcl 3.1.0, built here (~15 s).
#     Debian's libpgtcl (2.7.7) is not thread-safe (every virtual user is a
#     thread: with more than one, their statement names corrupt each other)
#     and lacks pg_notice_handler; HammerDB's binary release bundles
#     pgtcl-ng 2.1.1, whose pg_exec_prepared takes two more arguments. A
#     pkgIndex.tcl wrapper adds the one and adapts the other.
# The rest comes from Debian (scripts/apt.sh): Tcl 8.6, tcl-thread, tcllib,
# libsqlite3-tcl (HammerDB's job database), mysqltcl (MySQL and MariaDB,
# through `dbset db mysql`), and libpq-dev, tcl8.6-dev, autoconf, gcc and make
# to build Pgtcl. Only missing packages are installed.
#
# Run hammerdbcli from its directory (it starts ./bin/tclsh8.6) with
# TCLLIBPATH=DIR/hammerdb-4.12/lib (ticklecharts and Pgtcl) and TMP set to a
# writable directory (its configuration, job database and logs go there);
# fairbench's hammerdb cells do this themselves.
set -euo pipefail

VERSION=4.12
# The version file also names the two companions and the wrapper's revision,
# so that a change to any of them reinstalls.
STAMP="hammerdb $VERSION ticklecharts 3.2.7 pgtcl 3.1.0 wrapper 1"
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf 'install-hammerdb: %s\n' "$*" >&2; }
die() { printf 'install-hammerdb: ERROR: %s\n' "$*" >&2; exit 1; }

APT_CALLER=install-hammerdb
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"

[ $# -eq 1 ] || die "usage: $0 DIR"
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
H=$dest/hammerdb-$VERSION
if [ -x "$H/hammerdbcli" ] && [ "$(cat "$H/fairbench-install.version" 2>/dev/null)" = "$STAMP" ]; then
    log "HammerDB $VERSION already in $H"
    echo "$H"
    exit 0
fi

# shellcheck source=scripts/peer-tarball.sh
. "$REPO_ROOT/scripts/peer-tarball.sh"
hdb_tar=$(find_tarball hammerdb-4.12-src.tar.gz 42c1f9a191ff902709b1501c202c2544acb4743ef30d4cdfd925e239e1e4e1b6)
tc_tar=$(find_tarball ticklecharts-3.2.7-tcl.tar.gz d929684b69abd4ef20a3eb36f39c310881ee949733d8926f1d92758e65c7817e)
pgtcl_tar=$(find_tarball pgtcl-3.1.0-src.tar.gz 3fec29cd7b2615222c3106be126d3ee11daca15b4d71a94e8ffaf32b62a16faf)

# tcl-thread: every virtual user is a thread; libsqlite3-tcl: the job
# database; mysqltcl: dbset db mysql (MariaDB too; HammerDB's mariatcl is not
# packaged). Not libpgtcl (see above).
deps=(tcl8.6 tcl8.6-dev tcl-thread tcllib libsqlite3-tcl mysqltcl libpq-dev autoconf gcc make)
missing=()
for p in "${deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi
[ -x /usr/bin/tclsh8.6 ] || die "/usr/bin/tclsh8.6 not found after installing tcl8.6"
[ -f /usr/lib/tcl8.6/tclConfig.sh ] || die "/usr/lib/tcl8.6/tclConfig.sh not found (tcl8.6-dev): Pgtcl cannot be built"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
log "installing HammerDB $VERSION into $H (from $hdb_tar)"
new=$work/hammerdb-$VERSION
mkdir -p "$new/bin" "$new/lib/ticklecharts" "$new/lib/pgtcl-hdb"
tar -xzf "$hdb_tar" -C "$new" --strip-components=1 || die "$hdb_tar: cannot unpack"
[ -f "$new/hammerdbcli" ] && [ -f "$new/src/generic/gencli.tcl" ] || die "$hdb_tar: no hammerdbcli inside: not the HammerDB source tarball"
tar -xzf "$tc_tar" -C "$new/lib/ticklecharts" --strip-components=1 || die "$tc_tar: cannot unpack"
[ -f "$new/lib/ticklecharts/pkgIndex.tcl" ] || die "$tc_tar: no pkgIndex.tcl inside: not the ticklecharts tarball"
# hammerdbcli does: exec ./bin/tclsh8.6 "$0" (so it runs from its directory).
ln -s /usr/bin/tclsh8.6 "$new/bin/tclsh8.6"

# Pgtcl 3.1.0 (TEA build against Debian's Tcl 8.6, threads on).
src=$work/pgtcl
mkdir -p "$src"
tar -xzf "$pgtcl_tar" -C "$src" --strip-components=1 || die "$pgtcl_tar: cannot unpack"
[ -f "$src/configure.in" ] || die "$pgtcl_tar: no configure.in inside: not the Pgtcl source tarball"
buildlog=$work/pgtcl-build.log
step() {
    local what=$1; shift
    (cd "$src" && "$@") >>"$buildlog" 2>&1 || {
        tail -n 40 "$buildlog" >&2
        die "Pgtcl: $what failed (last lines of the build log above)"
    }
}
log "building Pgtcl 3.1.0"
step "autoreconf" autoreconf -fi
step "configure" ./configure --with-tcl=/usr/lib/tcl8.6 --enable-threads
step "make" make
[ -f "$src/libpgtcl3.1.0.so" ] || die "Pgtcl: make left no libpgtcl3.1.0.so"
cp "$src/libpgtcl3.1.0.so" "$new/lib/pgtcl-hdb/"
cat >"$new/lib/pgtcl-hdb/pkgIndex.tcl" <<'EOF'
# flightaware Pgtcl 3.1.0 + the two pgtcl-ng (2.1.1) calls HammerDB makes
# (written by fairbench's scripts/install-hammerdb.sh)
package ifneeded Pgtcl 3.1.0 [list apply {{dir} {
    load [file join $dir libpgtcl3.1.0.so] Pgtcl
    # HammerDB only calls "pg_notice_handler $conn puts"; libpq's default notice processor already prints to stderr
    proc ::pg_notice_handler {conn args} { return "" }
    # pgtcl-ng: pg_exec_prepared conn stmt paramTypes resultFormats ?arg ...?  flightaware: conn stmt ?arg ...?
    rename ::pg_exec_prepared ::pgtcl_fa_exec_prepared
    proc ::pg_exec_prepared {conn stmt types fmts args} { ::pgtcl_fa_exec_prepared $conn $stmt {*}$args }
}} $dir]
EOF

# Every library hammerdbcli loads, loaded as it will be (TCLLIBPATH for lib/).
check=$work/check.tcl
cat >"$check" <<'EOF'
foreach p {Thread sqlite3 ticklecharts Pgtcl mysqltcl} { puts "$p [package require $p]" }
EOF
(cd "$new" && TCLLIBPATH=$new/lib ./bin/tclsh8.6 "$check") >"$work/check.out" 2>&1 || {
    cat "$work/check.out" >&2
    die "a library HammerDB needs does not load (above)"
}
echo "$STAMP" >"$new/fairbench-install.version"
rm -rf "$H.old"
if [ -e "$H" ]; then mv "$H" "$H.old"; fi
mv "$new" "$H"
rm -rf "$H.old"
log "HammerDB $VERSION installed in $(( $(date +%s) - start )) s ($(tr '\n' ' ' <"$work/check.out"))"
echo "$H"
