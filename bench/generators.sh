#!/usr/bin/env bash
# bench/generators.sh — what several load generators per cell cost and give,
# against pgbench on the same PostgreSQL, in one run.
#
#   bench/generators.sh                      # local test server (scripts/test-servers.sh)
#   PGURL=postgres://u:p@host/db bench/generators.sh
#
# Each round runs, back to back and in a rotating order, pgbench -S and
# fairbench's tpcb select-only with the same CLIENTS on 1, 2 and 4 load
# generators (local processes coordinated through a results file), each for
# DURATION s on scale-SCALE data that pgbench -i loaded once. Printed: the
# median TPS of each, and the paired ratios (bench/ratio.awk) of fairbench on
# 1 generator to pgbench, and of 2 and 4 generators to 1. On one machine the
# generators share the cores with each other and with the server: the ratio
# to 1 generator is the price of coordination and of more processes, not the
# gain a second client machine would bring.
#
# Knobs: CLIENTS [8]  DURATION [15]  ROUNDS [3]  SCALE [10]  OUT_DIR [bench/out]
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-15}; DURATION=${DURATION%s}
ROUNDS=${ROUNDS:-3}
SCALE=${SCALE:-10}
OUT_DIR=${OUT_DIR:-$ROOT/bench/out}
require_positive CLIENTS DURATION ROUNDS SCALE
[ "$CLIENTS" -ge 4 ] || die "CLIENTS must be at least 4 (one per generator at 4 generators)"

if [ -z "${PGURL:-}" ]; then
    start_test_servers
    PGURL=$(test_env FAIRBENCH_TEST_PG)
fi
command -v pgbench >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 || apt_install postgresql-client postgresql-contrib
psql "$PGURL" -XqAt -c 'select 1' >/dev/null || die "cannot connect to the target with psql"
bash scripts/build.sh || die "scripts/build.sh failed"
FB=$ROOT/fairbench

STAMP=$(date -u +%Y%m%d-%H%M%S)
RUN_DIR=$OUT_DIR/generators-$STAMP
mkdir -p "$RUN_DIR"
CSV=$RUN_DIR/rows.csv
: >"$CSV"
JOBS=$(( CLIENTS < $(nproc) ? CLIENTS : $(nproc) ))

echo "== fairbench on 1, 2 and 4 load generators vs pgbench ($(date -u +%FT%TZ))"
echo "host: $(uname -srm), nproc $(nproc); server: $(psql "$PGURL" -XAt -c 'show server_version')"
echo "target: $(redact "$PGURL"); select-only, scale $SCALE, $CLIENTS clients, $DURATION s per run, $ROUNDS rounds"
echo "output: $RUN_DIR"

pgbench -i -s "$SCALE" -q "$PGURL" >"$RUN_DIR/load.log" 2>&1 || die "pgbench -i failed (see $RUN_DIR/load.log)"

tps_of() { awk '/^tps = / && /without initial connection time/ {print $3; exit}' "$1"; }

run_one() { # TOOL ROUND
    local log=$RUN_DIR/$1-r$2.log tps
    case $1 in
        pgbench) pgbench -n -S -M prepared -c "$CLIENTS" -j "$JOBS" -T "$DURATION" "$PGURL" >"$log" 2>&1 ;;
        fb1) "$FB" run --target "$PGURL" --workload tpcb --mode select-only --scale "$SCALE" -M prepared -n \
            -c "$CLIENTS" -T "$DURATION" --results "$RUN_DIR/fb.db" >"$log" 2>&1 ;;
        fb2 | fb4) "$FB" run --target "$PGURL" --workload tpcb --mode select-only --scale "$SCALE" -M prepared -n \
            -c "$CLIENTS" -T "$DURATION" --generators "${1#fb}" --results "$RUN_DIR/fb.db" >"$log" 2>&1 ;;
    esac || { tail -n 20 "$log" | sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#g' >&2; die "$1 round $2 failed (see $log)"; }
    tps=$(tps_of "$log")
    [ -n "$tps" ] || die "$log: no tps line"
    echo "select-only,$1,$2,$tps" >>"$CSV"
    printf '  round %d %-8s %10.1f tps\n' "$2" "$1" "$tps"
}

tools=(pgbench fb1 fb2 fb4)
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
        run_one "${tools[(i + r - 1) % ${#tools[@]}]}" "$r"
    done
done

median() { sort -g | awk '{a[NR] = $1} END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo
echo "median tps:"
for t in "${tools[@]}"; do
    printf '  %-8s %10.1f\n' "$t" "$(awk -F, -v t="$t" '$2 == t {print $4}' "$CSV" | median)"
done
echo "paired ratios (geometric mean [95 % interval]):"
for pair in "pgbench fb1" "fb1 fb2" "fb1 fb4"; do
    read -r ref new <<<"$pair"
    awk -F, -v ref="$ref" -v new="$new" -f "$ROOT/bench/ratio.awk" "$CSV" |
        awk -F, -v l="$new/$ref" '{ if ($4 == "NA") printf "  %-12s %.3f (n=%d)\n", l, $3, $2; else printf "  %-12s %.3f [%.3f, %.3f] (n=%d)\n", l, $3, $4, $5, $2 }'
done
