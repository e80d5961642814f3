#!/usr/bin/env bash
# bench/serve.sh — what `fairbench run --serve` costs the measurement: the same
# short run with and without the live page, interleaved, a client polling the
# page each second as a browser would.
#
#   bench/serve.sh                              # embedded SQLite (nothing to start)
#   TARGET=postgres://u:p@host/db bench/serve.sh
#   PAIRS=4 DURATION=10 bash bench/serve.sh     # the figure in bench/README.md
#
# Each pair runs, back to back and in alternating order, the ad-hoc tpcb
# (pgbench's flags) --mode MODE with CLIENTS clients for DURATION s, once plain
# and once with --serve while a poller fetches /live.json every second over
# one connection, as the page does in a browser. The data (scale SCALE) is loaded once before. Printed:
# the median tps of each, and the paired ratio served/plain with its 95 %
# interval (bench/ratio.awk): an interval holding 1.0 shows no cost. Rows in
# bench/out/serve-<stamp>/rows.csv.
#
# Knobs: PAIRS [4]  DURATION [10]  CLIENTS [2]  SCALE [1]  MODE [select-only]
#        TARGET [sqlite:bench/out/serve-<stamp>/bench.db]  OUT_DIR [bench/out]
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PAIRS=${PAIRS:-4}
DURATION=${DURATION:-10}; DURATION=${DURATION%s}
CLIENTS=${CLIENTS:-2}
SCALE=${SCALE:-1}
MODE=${MODE:-select-only}
OUT_DIR=${OUT_DIR:-$ROOT/bench/out}
require_positive PAIRS DURATION CLIENTS SCALE
case $MODE in tpcb-like | simple-update | select-only) ;; *) die "MODE must be tpcb-like, simple-update or select-only (got '$MODE')" ;; esac
command -v curl >/dev/null 2>&1 || apt_install curl

STAMP=$(date -u +%Y%m%d-%H%M%S)
RUN_DIR=$OUT_DIR/serve-$STAMP
mkdir -p "$RUN_DIR"
TARGET=${TARGET:-sqlite:$RUN_DIR/bench.db}
CSV=$RUN_DIR/rows.csv
: >"$CSV"
bash scripts/build.sh || die "scripts/build.sh failed"
FB=$ROOT/fairbench

echo "== fairbench run with and without --serve ($(date -u +%FT%TZ))"
echo "host: $(uname -srm), nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "target: $(redact "$TARGET"); tpcb $MODE, scale $SCALE, $CLIENTS clients, $DURATION s per run, $PAIRS pairs"
echo "output: $RUN_DIR"

"$FB" load --target "$TARGET" --workload tpcb --scale "$SCALE" -q >"$RUN_DIR/load.log" 2>&1 || die "the load failed (see $RUN_DIR/load.log)"

tps_of() { awk '/^tps = / && /without initial connection time/ {print $3; exit}' "$1"; }

# poll URL — what a browser on the page does: the snapshot every second over
# one kept-alive connection (one curl, --rate); it ends with the server.
poll() {
    curl -sS --fail-early --rate 1/s "${1}live.json?n=[1-100000]" >/dev/null 2>&1 || true
}

run_one() { # plain|served PAIR
    local log=$RUN_DIR/$1-p$2.log err=$RUN_DIR/$1-p$2.err tps pid url=""
    local args=(run --target "$TARGET" --workload tpcb --mode "$MODE" --scale "$SCALE" -n -c "$CLIENTS" -T "$DURATION" --results "$RUN_DIR/fb.db")
    if [ "$1" = plain ]; then
        "$FB" "${args[@]}" >"$log" 2>"$err" || die "plain pair $2 failed (see $err)"
    else
        "$FB" "${args[@]}" --serve >"$log" 2>"$err" &
        pid=$!
        for _ in $(seq 100); do
            url=$(sed -nE 's#^live page: (http://[^ ]+/).*#\1#p' "$err" | head -n 1)
            [ -n "$url" ] && break
            sleep 0.1
        done
        [ -n "$url" ] || { kill "$pid" 2>/dev/null; die "served pair $2: no live page URL (see $err)"; }
        poll "$url" &
        wait "$pid" || die "served pair $2 failed (see $err)"
        wait || true # the poller ends with the server
    fi
    tps=$(tps_of "$log")
    [ -n "$tps" ] || die "$log: no tps line"
    echo "$MODE,$1,$2,$tps" >>"$CSV"
    printf '  pair %d %-7s %10.1f tps\n' "$2" "$1" "$tps"
}

for ((p = 1; p <= PAIRS; p++)); do
    if ((p % 2)); then run_one plain "$p"; run_one served "$p"; else run_one served "$p"; run_one plain "$p"; fi
done

median() { sort -g | awk '{a[NR] = $1} END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo
printf 'median tps: plain %.1f, served %.1f\n' \
    "$(awk -F, '$2 == "plain" {print $4}' "$CSV" | median)" "$(awk -F, '$2 == "served" {print $4}' "$CSV" | median)"
echo "paired ratio served/plain (pairs, geometric mean, 95 % interval):"
awk -F, -v ref=plain -v new=served -f bench/ratio.awk "$CSV" | awk -F, '{printf "  %s: %s pairs, %s [%s, %s]\n", $1, $2, $3, $4, $5}'
