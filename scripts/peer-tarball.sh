# scripts/peer-tarball.sh — sourced by the scripts that build a peer tool from
# a vendored source tarball (install-memtier.sh, install-hammerdb.sh,
# install-ycsb-java.sh). The caller defines REPO_ROOT and die.

# find_tarball NAME SHA256 — the path of the checked source tarball NAME:
# $FAIRBENCH_PEERS/NAME when FAIRBENCH_PEERS is set (and only there), else
# third_party/peers/ or the workplace's shared/peers/; dies naming where it
# looked, or when the file is not the one the script was checked with.
find_tarball() {
    local name=$1 sum=$2 candidates=() c got
    if [ -n "${FAIRBENCH_PEERS:-}" ]; then
        candidates=("$FAIRBENCH_PEERS/$name")
    else
        candidates=("$REPO_ROOT/third_party/peers/$name" "$REPO_ROOT/../shared/peers/$name")
    fi
    for c in "${candidates[@]}"; do
        if [ -f "$c" ]; then
            got=$(sha256sum "$c" | cut -d' ' -f1)
            [ "$got" = "$sum" ] || die "$c: SHA-256 $got, expected $sum (not the source this script was checked with)"
            echo "$c"
            return
        fi
    done
    die "$name not found (looked at: ${candidates[*]}); see third_party/peers/README.md, or set FAIRBENCH_PEERS to the directory that holds it"
}
