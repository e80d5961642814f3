#!/usr/bin/env bash
# scripts/install-go-ycsb.sh DIR — build the pinned go-ycsb (the tool behind
# `tool = "ycsb"` study cells) into DIR/go-ycsb, unless DIR already holds that
# version (DIR/go-ycsb.version). Prints the binary's path.
#
# go-ycsb is a Go program from the Go module proxy. `go install …@v1.0.1`
# refuses it (its go.mod has a replace directive), so it is built from the
# module's source, with the dependency versions its go.sum pins. From an empty
# module and build cache this takes a few minutes (see docs/tools.md).
set -euo pipefail

TOOL=go-ycsb
VERSION=v1.0.1
MODULE=github.com/pingcap/go-ycsb
# shellcheck source=scripts/go-tool.sh
. "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
go_tool_begin "$@"
go_tool_download
src="$(go env GOMODCACHE)/$MODULE@$VERSION"
[ -f "$src/go.mod" ] || die "$src: module source missing after go mod download"
cp -R "$src" "$work/src"
chmod -R u+w "$work/src"
(cd "$work/src" && GOFLAGS="-modcacherw -buildvcs=false" go build -trimpath -o "$work/go-ycsb" ./cmd/go-ycsb) \
    || die "building go-ycsb $VERSION failed"
go_tool_finish "$work/go-ycsb"
