# scripts/go-tool.sh — what the scripts that build a pinned Go peer tool into a
# cache folder share (install-go-ycsb.sh, install-go-tpc.sh). Sourced after
# setting TOOL (the binary's name), VERSION and MODULE:
#
#   go_tool_begin "$@"       # DIR argument; prints the cached binary and exits when DIR has VERSION;
#                            # else sets $dest and $work (a temporary folder removed at exit) and $start
#   go_tool_download         # the module's source at VERSION into the module cache
#   go_tool_finish BINARY    # moves BINARY into $dest/$TOOL, records VERSION, prints the path
log() { printf 'install-%s: %s\n' "$TOOL" "$*" >&2; }
die() { printf 'install-%s: ERROR: %s\n' "$TOOL" "$*" >&2; exit 1; }

go_tool_begin() {
    [ $# -eq 1 ] || die "usage: $0 DIR"
    dest=$1
    mkdir -p "$dest"
    dest=$(cd "$dest" && pwd)
    if [ -x "$dest/$TOOL" ] && [ "$(cat "$dest/$TOOL.version" 2>/dev/null)" = "$VERSION" ]; then
        log "$TOOL $VERSION already in $dest"
        echo "$dest/$TOOL"
        exit 0
    fi
    command -v go >/dev/null 2>&1 || die "go not found: $TOOL is built with the Go toolchain"
    work=$(mktemp -d)
    trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
    log "building $TOOL $VERSION into $dest (module source from the Go module proxy)"
    start=$(date +%s)
}

go_tool_download() {
    # Outside any module, so that the download is not taken for a dependency.
    (cd "$work" && GOFLAGS=-modcacherw go mod download "$MODULE@$VERSION") || die "go mod download $MODULE@$VERSION failed"
}

go_tool_finish() {
    mv "$1" "$dest/$TOOL.tmp"
    mv "$dest/$TOOL.tmp" "$dest/$TOOL"
    echo "$VERSION" >"$dest/$TOOL.version"
    log "$TOOL $VERSION built in $(($(date +%s) - start)) s"
    echo "$dest/$TOOL"
}
