#!/usr/bin/env bash
# bench/scale.sh — issue 41's measurements at the published studies' scale, one
# part after another, each part one of the bench scripts (which run fairbench
# and the peer against the same server in interleaved pairs and print the
# figures and paired ratios). This script only chooses the scale and collects
# what each part prints; bench/README.md holds the figures, the projection to
# the published scales and what limits each.
#
#   bash bench/scale.sh                         # every part at the default scale (hours)
#   PARTS="ycsb-load tpcc-build" bash bench/scale.sh
#   QUICK=1 bash bench/scale.sh                 # every part at a small scale: checks the script in ~30 min
#
# Parts (PARTS [all, in this order]) and the command each runs:
#   ssb-load-clickhouse  SCALE=s QUERIES=Q1.3 ROUNDS=1 TRIES=1 REPS=r bash bench/analytics.sh, s in SSB_SCALES ["1 3 10"]
#   ssb-load-postgres    WHAT=ssb-postgres SCALE=s REPS=r bash bench/loads.sh, s in SSB_SCALES
#   clickbench-load      WHAT=clickbench-clickhouse ROWS=n REPS=r bash bench/loads.sh, n in CLICKBENCH_ROWS ["1000000 10000000"]
#   tpcc-build           HAMMERDB_DIR=… ENGINES=postgres LOAD_THREADS=2 BUILD_WAREHOUSES="W…" BUILD_ONLY=1 bash bench/tpcc.sh,
#                        W in TPCC_WAREHOUSES ["10 25"] (HammerDB needs W ≥ the 2 load workers)
#   ycsb-load            PHASE=load RECORDS=YCSB_RECORDS [1000000] bash bench/ycsb.sh (FerretDB: 5 000 records,
#                        go-ycsb inserts there at ~100 records/s)
#   concurrency          bench/concurrency.sh: ycsb at 128 threads, kv at 4 × 50 and 8 × 100, tpcc at 50 VUs
#   kv-pipeline          SERVERS=redis COMMANDS=get PIPELINES=16 bash bench/kv.sh (beside redis-benchmark)
#   report-scale         bench/synth: report time and memory at 100, 300 and 1 000 runs; file size per run-hour
#   soak                 RATE=SOAK_RATE bash bench/soak.sh SOAK_SECONDS [14400]
# REPS [1] is the pairs per load cell. Each part's output goes to
# bench/out/scale-<stamp>/PART.txt; a part that fails is reported and the
# others go on; the script exits 1 if any failed.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL_PARTS="ssb-load-clickhouse ssb-load-postgres clickbench-load tpcc-build ycsb-load concurrency kv-pipeline report-scale soak"
PARTS=${PARTS:-$ALL_PARTS}; REPS=${REPS:-1}; QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
    SSB_SCALES=${SSB_SCALES:-0.1}; CLICKBENCH_ROWS=${CLICKBENCH_ROWS:-100000}; TPCC_WAREHOUSES=${TPCC_WAREHOUSES:-2}
    YCSB_RECORDS=${YCSB_RECORDS:-20000}; SOAK_SECONDS=${SOAK_SECONDS:-120}; SYNTH_RUNS=${SYNTH_RUNS:-10 30}
else
    SSB_SCALES=${SSB_SCALES:-1 3 10}; CLICKBENCH_ROWS=${CLICKBENCH_ROWS:-1000000 10000000}; TPCC_WAREHOUSES=${TPCC_WAREHOUSES:-10 25}
    YCSB_RECORDS=${YCSB_RECORDS:-1000000}; SOAK_SECONDS=${SOAK_SECONDS:-14400}; SYNTH_RUNS=${SYNTH_RUNS:-100 300 1000}
fi
SOAK_RATE=${SOAK_RATE:-1000}
require_positive REPS YCSB_RECORDS SOAK_SECONDS SOAK_RATE
for n in $CLICKBENCH_ROWS $TPCC_WAREHOUSES $SYNTH_RUNS; do is_positive "$n" || die "CLICKBENCH_ROWS, TPCC_WAREHOUSES and SYNTH_RUNS hold whole numbers > 0 (got '$n')"; done
for p in $PARTS; do [[ " $ALL_PARTS " == *" $p "* ]] || die "PARTS: unknown part '$p' (parts: $ALL_PARTS)"; done

OUT=$ROOT/bench/out/scale-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
start_test_servers

part_ssb-load-clickhouse() {
    local s
    for s in $SSB_SCALES; do SCALE=$s QUERIES=Q1.3 ROUNDS=1 TRIES=1 REPS=$REPS bash bench/analytics.sh; done
}
part_ssb-load-postgres() {
    local s
    for s in $SSB_SCALES; do WHAT=ssb-postgres SCALE=$s REPS=$REPS bash bench/loads.sh; done
}
part_clickbench-load() {
    local n
    for n in $CLICKBENCH_ROWS; do WHAT=clickbench-clickhouse ROWS=$n REPS=$REPS bash bench/loads.sh; done
}
part_tpcc-build() {
    local hammerdb
    hammerdb=$(bash scripts/install-hammerdb.sh "$ROOT/.bin") || return 1
    HAMMERDB_DIR=$hammerdb ENGINES=postgres LOAD_THREADS=2 BUILD_WAREHOUSES="$TPCC_WAREHOUSES" \
        BUILD_PAIRS=$REPS BUILD_ONLY=1 bash bench/tpcc.sh
}
part_ycsb-load() {
    PGURL=$(test_env FAIRBENCH_TEST_PG) PGDB=fbbench_ycsb_load PHASE=load RECORDS=$YCSB_RECORDS \
        FERRET_RECORDS=$((YCSB_RECORDS < 5000 ? YCSB_RECORDS : 5000)) REPS=$REPS bash bench/ycsb.sh
}
part_concurrency() {
    if [ "$QUICK" = 1 ]; then DURATION=5 REPS=1 bash bench/concurrency.sh; else bash bench/concurrency.sh; fi
}
part_kv-pipeline() {
    SERVERS=redis COMMANDS=get PIPELINES=16 bash bench/kv.sh
}
part_report-scale() {
    local n bin=$OUT/bin
    mkdir -p "$bin"
    go build -o "$bin/synth" ./bench/synth && go build -o "$bin/fairbench" ./cmd/fairbench || return 1
    for n in $SYNTH_RUNS; do
        "$bin/synth" -runs "$n" -seconds 60-120 -out "$OUT/synth-$n.db" >/dev/null || return 1
        /usr/bin/time -f "$n runs ($(du -m "$OUT/synth-$n.db" | cut -f1) MB): report %e s wall, %U+%S s CPU, peak RSS %M KB" \
            "$bin/fairbench" report --results "$OUT/synth-$n.db" >/dev/null || return 1
        rm -f "$OUT/synth-$n.db"
    done
    "$bin/synth" -runs 4 -seconds 3600 -out "$OUT/synth-hours.db" >/dev/null || return 1
    echo "results file: $(( $(stat -c %s "$OUT/synth-hours.db") / 4 / 1000000 )) MB per run-hour (4 runs of 3 600 s, three op types)"
    rm -f "$OUT/synth-hours.db"
}
part_soak() {
    RATE=$SOAK_RATE OUT_DIR=$OUT bash bench/soak.sh "$SOAK_SECONDS"
}

failed=()
for p in $PARTS; do
    printf '\n==> %s (%s)\n' "$p" "$(date -u +%H:%M:%S)"
    if "part_$p" 2>&1 | tee "$OUT/$p.txt"; [ "${PIPESTATUS[0]}" -eq 0 ]; then :; else
        failed+=("$p")
        echo "scale.sh: part $p failed: see $OUT/$p.txt"
    fi
done
printf '\nscale.sh: %d parts, output in %s\n' "$(wc -w <<<"$PARTS")" "$OUT"
[ ${#failed[@]} -eq 0 ] || die "failed parts: ${failed[*]}"
