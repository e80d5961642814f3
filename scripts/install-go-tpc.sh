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

TOOL=go-tpc
VERSION=v1.0.12
MODULE=github.com/pingcap/go-tpc
# shellcheck source=scripts/go-tool.sh
. "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
go_tool_begin "$@"
go_tool_download
cache="file://$(go env GOMODCACHE)/cache/download"
(cd "$work" && GOFLAGS="-modcacherw -buildvcs=false" GOPROXY="$cache,$(go env GOPROXY)" GOBIN="$work/bin" \
    go install -trimpath "$MODULE/cmd/go-tpc@$VERSION") || die "building go-tpc $VERSION failed"
go_tool_finish "$work/bin/go-tpc"
