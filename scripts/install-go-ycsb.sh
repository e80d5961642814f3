#!/usr/bin/env bash
# scripts/install-go-ycsb.sh DIR — build the pinned go-ycsb (the tool behind
# `tool = "ycsb"` study cells) into DIR/go-ycsb, unless DIR already holds that
# version (DIR/go-ycsb.version). Prints the binary's path.
#
# go-ycsb is a Go program from the Go module proxy. `go install …@v1.0.1`
# refuses it (its go.mod has a replace directive), so it is built from the
# module's source, with the dependency versions its go.sum pins. From an empty
# module and build cache this takes a few minutes (see the README).
set -euo pipefail

VERSION=v1.0.1
MODULE=github.com/pingcap/go-ycsb

log() { printf 'install-go-ycsb: %s\n' "$*" >&2; }
die() { printf 'install-go-ycsb: ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 DIR"
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -x "$dest/go-ycsb" ] && [ "$(cat "$dest/go-ycsb.version" 2>/dev/null)" = "$VERSION" ]; then
    log "go-ycsb $VERSION already in $dest"
    echo "$dest/go-ycsb"
    exit 0
fi
command -v go >/dev/null 2>&1 || die "go not found: go-ycsb is built with the Go toolchain"

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
log "building go-ycsb $VERSION into $dest (module source from the Go module proxy)"
start=$(date +%s)
# Outside any module, so that the download is not taken for a dependency.
(cd "$work" && GOFLAGS=-modcacherw go mod download "$MODULE@$VERSION") || die "go mod download $MODULE@$VERSION failed"
src="$(go env GOMODCACHE)/$MODULE@$VERSION"
[ -f "$src/go.mod" ] || die "$src: module source missing after go mod download"
cp -R "$src" "$work/src"
chmod -R u+w "$work/src"
(cd "$work/src" && GOFLAGS="-modcacherw -buildvcs=false" go build -trimpath -o "$dest/go-ycsb.tmp" ./cmd/go-ycsb) \
    || die "building go-ycsb $VERSION failed"
mv "$dest/go-ycsb.tmp" "$dest/go-ycsb"
echo "$VERSION" >"$dest/go-ycsb.version"
log "go-ycsb $VERSION built in $(( $(date +%s) - start )) s"
echo "$dest/go-ycsb"
