#!/usr/bin/env bash
# scripts/install-ferretdb.sh DIR — build the pinned FerretDB (the
# MongoDB-compatible server the mongodb:// driver's integration tests run
# against) into DIR/ferretdb, unless DIR already holds that version
# (DIR/ferretdb.version). Prints the binary's path.
#
# No real mongod can be installed on these machines (Debian ships none; the
# npm and PyPI packages download mongod at run time from fastdl.mongodb.org,
# which is blocked), so FerretDB v1 is built from its Go module: v1 speaks the
# wire protocol itself over SQLite or PostgreSQL (v2 needs a PostgreSQL
# extension that is not packaged). A cold build takes one to two minutes.
set -euo pipefail

TOOL=ferretdb
VERSION=v1.24.2
MODULE=github.com/FerretDB/FerretDB
# shellcheck source=scripts/go-tool.sh
. "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
go_tool_begin "$@"
go_tool_download
src="$(go env GOMODCACHE)/github.com/!ferret!d!b/!ferret!d!b@$VERSION"
[ -f "$src/go.mod" ] || die "$src: module source missing after go mod download"
cp -R "$src" "$work/src"
chmod -R u+w "$work/src"
# FerretDB embeds build/version/*.txt; version.txt is generated upstream from
# git and is not in the module zip, and without it the binary panics at start.
echo "$VERSION" >"$work/src/build/version/version.txt"
# GOTOOLCHAIN=local: its go.mod names a toolchain line the proxy may not
# serve here; the installed Go builds it.
(cd "$work/src" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-modcacherw -buildvcs=false" \
    go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) \
    || die "building FerretDB $VERSION failed (see the go build output above)"
got=$("$work/ferretdb" --version 2>&1 | sed -n 's/^version: *//p' | head -1)
[ "$got" = "$VERSION" ] || die "the built ferretdb says version '$got', want $VERSION"
go_tool_finish "$work/ferretdb"
