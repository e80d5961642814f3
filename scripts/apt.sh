# scripts/apt.sh — running as root and installing Debian packages, for
# scripts/test-servers.sh and the bench scripts (bench/lib.sh). Sourced, not
# run. The caller defines die MESSAGE and sets APT_CALLER, the name its
# progress lines on stderr start with.

# as_root CMD... — run CMD as root (directly, or through sudo when available).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -n "$@" || die "needs root for: $* (sudo -n failed; run this script as root)"
    else
        die "needs root for: $* (run this script as root)"
    fi
}

# apt_install PKG... — install Debian packages non-interactively, running
# apt-get update once per script. LANG is set so that a cluster created by the
# postgresql postinst gets UTF-8 encoding.
APT_UPDATED=0
apt_install() {
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install $* by hand (Debian 12 expected)"
    local apt=(apt-get -o DPkg::Lock::Timeout=300 -q)
    if [ "$APT_UPDATED" -eq 0 ]; then
        printf '%s: apt-get update\n' "$APT_CALLER" >&2
        as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" update >&2 || die "apt-get update failed"
        APT_UPDATED=1
    fi
    printf '%s: apt-get install -y %s\n' "$APT_CALLER" "$*" >&2
    as_root env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8 \
        "${apt[@]}" install -y --no-install-recommends "$@" >&2 || die "apt-get install $* failed"
}
