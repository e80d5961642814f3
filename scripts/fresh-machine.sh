#!/usr/bin/env bash
# scripts/fresh-machine.sh — run ./scripts/test.sh as on a new machine: a Debian
# bookworm root made by debootstrap with nothing of the tests' servers or peers
# in it, in a network namespace of its own (its own loopback, so the servers it
# starts never meet the ones this host already runs; the package registries
# reached through NAT), in a PID namespace of its own (its processes end with
# it). Prints the time of test-servers and of the whole test command.
#
#   sudo bash scripts/fresh-machine.sh               # a clone of HEAD, quiet
#   HOG=1 sudo bash scripts/fresh-machine.sh         # a busy loop on every CPU beside it
#   REV=main KEEP=1 sudo bash scripts/fresh-machine.sh
#
# What the root holds before the test command starts is what a machine of this
# workplace holds before a session (its machine page: Go, a JDK 17 with Maven,
# the Temurin 25 JDK, CPython, gcc/g++/make/cmake, git, curl): Go and the
# Temurin JDK are copied from this host, the host's pyenv (if any) is mounted
# read-only at the same path, the rest comes from Debian. No database server,
# no peer tool, no Go module or build cache, no Maven or PyPI download.
#
# Needs root, debootstrap and iptables (installed through scripts/apt.sh when
# missing), and an outgoing interface to the registries (OUT_IF [the default
# route's]). Environment (defaults in brackets): FRESH_DIR
# [/var/tmp/fairbench-fresh] (the root is made once as FRESH_DIR/base and copied
# for each run into FRESH_DIR/run, so every run starts from nothing); REV [HEAD]
# the commit cloned; HOG [0]; KEEP [0] keeps FRESH_DIR/run after the run;
# NICE [0], the niceness of the test command (a negative value gives it
# priority over other work on a shared host). The log is FRESH_DIR/test.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$(pwd)
die() { printf 'fresh-machine.sh: %s\n' "$*" >&2; exit 1; }
log() { printf 'fresh-machine.sh: %s\n' "$*" >&2; }
APT_CALLER=fresh-machine.sh
. scripts/apt.sh
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, network namespaces, chroot): run it with sudo"

FRESH_DIR=${FRESH_DIR:-/var/tmp/fairbench-fresh}; REV=${REV:-HEAD}; HOG=${HOG:-0}; KEEP=${KEEP:-0}; NICE=${NICE:-0}
[[ $NICE =~ ^-?[0-9]+$ ]] && [ "$NICE" -ge -20 ] && [ "$NICE" -le 19 ] || die "NICE must be a whole number in -20..19 (got '$NICE')"
COMMIT=$(git rev-parse --verify "$REV^{commit}") || die "REV=$REV is not a commit of $REPO"
OUT_IF=${OUT_IF:-$(ip route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") {print $(i+1); exit}}')}
[ -n "$OUT_IF" ] || die "no default route: set OUT_IF to the interface that reaches the package registries"
command -v debootstrap >/dev/null && command -v iptables >/dev/null || apt_install debootstrap iptables

BASE=$FRESH_DIR/base RUN=$FRESH_DIR/run NS=fbfresh
mkdir -p "$FRESH_DIR"
if [ ! -e "$BASE/.fresh-done" ]; then
    log "debootstrap bookworm into $BASE"
    rm -rf "$BASE"
    debootstrap --variant=minbase \
        --include=ca-certificates,git,gcc,g++,make,cmake,curl,procps,iproute2,openjdk-17-jdk-headless,maven,xz-utils,unzip,bzip2,file,tzdata \
        bookworm "$BASE" http://deb.debian.org/debian >"$FRESH_DIR/debootstrap.log" 2>&1 \
        || die "debootstrap failed: see $FRESH_DIR/debootstrap.log"
    goroot=$(go env GOROOT)
    mkdir -p "$BASE/usr/local" && cp -a "$goroot" "$BASE/usr/local/go"
    for jdk in /usr/lib/jvm/temurin-*; do [ -d "$jdk" ] && cp -a "$jdk" "$BASE/usr/lib/jvm/"; done
    cp /etc/resolv.conf "$BASE/etc/resolv.conf"
    # The machine's own certificate authorities (a registry may be reached through a proxy
    # that signs with one) and its settings for Go and pip (GOTOOLCHAIN=local, pip's CA file).
    if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
        cp /usr/local/share/ca-certificates/*.crt "$BASE/usr/local/share/ca-certificates/"
        # (its Java keystore hook fails without /proc; the host's keystore holds the same authorities)
        chroot "$BASE" update-ca-certificates >>"$FRESH_DIR/debootstrap.log" 2>&1 || true
        cmp -s /etc/ssl/certs/ca-certificates.crt "$BASE/etc/ssl/certs/ca-certificates.crt" \
            || die "update-ca-certificates did not give $BASE this host's CA bundle"
    fi
    [ ! -f /etc/ssl/certs/java/cacerts ] || cp /etc/ssl/certs/java/cacerts "$BASE/etc/ssl/certs/java/cacerts"
    [ ! -f /root/.config/go/env ] || { mkdir -p "$BASE/root/.config/go" && cp /root/.config/go/env "$BASE/root/.config/go/env"; }
    [ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$BASE/etc/pip.conf"
    touch "$BASE/.fresh-done"
fi

MOUNTS=()
cleanup() {
    local m
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
    iptables -t nat -D POSTROUTING -s 10.77.0.0/30 -o "$OUT_IF" -j MASQUERADE 2>/dev/null || true
    iptables -D FORWARD -i fbfresh-h -j ACCEPT 2>/dev/null || true
    iptables -D FORWARD -o fbfresh-h -m state --state RELATED,ESTABLISHED -j ACCEPT 2>/dev/null || true
    ip link del fbfresh-h 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    [ "$KEEP" = 1 ] || rm -rf "$RUN"
}
trap cleanup EXIT
cleanup
rm -rf "$RUN"
log "copying the root to $RUN"
cp -a "$BASE" "$RUN"
git clone -q --no-local "$REPO" "$RUN/root/fairbench" && git -C "$RUN/root/fairbench" checkout -q "$COMMIT"

ip netns add "$NS"
ip link add fbfresh-h type veth peer name fbfresh-n
ip link set fbfresh-n netns "$NS"
ip addr add 10.77.0.1/30 dev fbfresh-h && ip link set fbfresh-h up
ip netns exec "$NS" ip addr add 10.77.0.2/30 dev fbfresh-n
ip netns exec "$NS" ip link set fbfresh-n up
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" ip route add default via 10.77.0.1
sysctl -q -w net.ipv4.ip_forward=1
iptables -t nat -A POSTROUTING -s 10.77.0.0/30 -o "$OUT_IF" -j MASQUERADE
iptables -A FORWARD -i fbfresh-h -j ACCEPT
iptables -A FORWARD -o fbfresh-h -m state --state RELATED,ESTABLISHED -j ACCEPT

# The root a mount point of its own: the JVM (Elasticsearch, OpenSearch) looks up the mount of
# each data directory in /proc/self/mounts and fails with "Mount point not found" otherwise.
mount --bind "$RUN" "$RUN"; MOUNTS+=("$RUN")
for d in dev dev/pts sys; do mount --bind "/$d" "$RUN/$d"; MOUNTS+=("$RUN/$d"); done
mount -t tmpfs tmpfs "$RUN/dev/shm"; MOUNTS+=("$RUN/dev/shm")
if [ -d /root/.pyenv ]; then
    mkdir -p "$RUN/root/.pyenv" && mount --bind -o ro /root/.pyenv "$RUN/root/.pyenv"; MOUNTS+=("$RUN/root/.pyenv")
fi

cat >"$RUN/root/run-tests.sh" <<'EOF'
#!/bin/bash
set -uo pipefail
export HOME=/root PATH=/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PYENV_ROOT=/root/.pyenv CI=true LANG=C.UTF-8
mount -t proc proc /proc
hostname fresh
cd /root/fairbench
if [ "$HOG" = 1 ]; then
    cat >/tmp/hog.go <<'GO'
package main

import "runtime"

func main() {
	for i := 0; i < runtime.NumCPU(); i++ {
		go func() {
			for {
			}
		}()
	}
	select {}
}
GO
    (cd /tmp && go run hog.go) &
fi
start=$(date +%s)
nice -n "$NICE" ./scripts/test.sh
rc=$?
echo "fresh-machine: ./scripts/test.sh exit $rc after $(( $(date +%s) - start )) s"
exit $rc
EOF
chmod +x "$RUN/root/run-tests.sh"

log "running ./scripts/test.sh at $(git rev-parse --short "$COMMIT") in $RUN (network namespace $NS, HOG=$HOG, NICE=$NICE); log: $FRESH_DIR/test.log"
rc=0
ip netns exec "$NS" unshare --pid --fork --mount --uts \
    chroot "$RUN" /usr/bin/env HOG="$HOG" NICE="$NICE" /root/run-tests.sh >"$FRESH_DIR/test.log" 2>&1 || rc=$?
grep -E '^(==>|test-servers: .*after|fresh-machine:)|^(ok|FAIL|---) ' "$FRESH_DIR/test.log" | tail -60 || true
exit "$rc"
