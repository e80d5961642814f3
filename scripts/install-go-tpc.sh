#!/usr/bin/env bash
# scripts/install-go-tpc.sh DIR — build the pinned go-tpc (the tool behind
# `tool = "go-tpc"` study cells of kind tpcc) into DIR/go-tpc, unless DIR
# already holds that version (DIR/go-tpc.version). Prints the binary's path.
#
# go-tpc is a Go program from the Go module proxy. The version is pinned:
# `@latest` resolves to v1.0.7, which has no PostgreSQL driver, and the proxy
# here refuses version lists for this module. So the module is downloaded at
# its pinned version first, and `go install` is pointed at the local module
# cache before the proxy (GOPROXY=file://…), so it finds that version without
# asking for a list.
set -euo pipefail

VERSION=v1.0.12
MODULE=github.com/pingcap/go-tpc

log() { printf 'install-go-tpc: %s\n' "$*" >&2; }
die() { printf 'install-go-tpc: ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 DIR"
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -x "$dest/go-tpc" ] && [ "$(cat "$dest/go-tpc.version" 2>/dev/null)" = "$VERSION" ]; then
    log "go-tpc $VERSION already in $dest"
    echo "$dest/go-tpc"
    exit 0
fi
command -v go >/dev/null 2>&1 || die "go not found: go-tpc is built with the Go toolchain"

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
log "building go-tpc $VERSION into $dest (module from the Go module proxy)"
start=$(date +%s)
# Outside any module, so that the download is not taken for a dependency.
(cd "$work" && GOFLAGS=-modcacherw go mod download "$MODULE@$VERSION") || die "go mod download $MODULE@$VERSION failed"
cache="file://$(go env GOMODCACHE)/cache/download"
(cd "$work" && GOFLAGS="-modcacherw -buildvcs=false" GOPROXY="$cache,$(go env GOPROXY)" GOBIN="$work/bin" \
    go install -trimpath "$MODULE/cmd/go-tpc@$VERSION") || die "building go-tpc $VERSION failed"
mv "$work/bin/go-tpc" "$dest/go-tpc.tmp"
mv "$dest/go-tpc.tmp" "$dest/go-tpc"
echo "$VERSION" >"$dest/go-tpc.version"
log "go-tpc $VERSION built in $(( $(date +%s) - start )) s"
echo "$dest/go-tpc"
