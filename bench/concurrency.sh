#!/usr/bin/env bash
# bench/concurrency.sh — fairbench against its peers at the published studies'
# client counts, in interleaved pairs (issue 41, item 4).
#
#   bash bench/concurrency.sh                          # every cell, 15 s × 2 pairs
#   CELLS=kv DURATION=10 REPS=3 bash bench/concurrency.sh
#
# Cells (CELLS):
#   ycsb-redis     go-ycsb v1.0.1's workloada (50 % reads, 50 % updates, uniform)
#                  at YCSB_THREADS threads against `fairbench run --workload ycsb
#                  -P <the same file> --threads N`, RECORDS records each tool
#                  loaded once (go-ycsb in database 1, fairbench in 2).
#   ycsb-postgres  the same on PostgreSQL (PG_SERVER, below), tables of their own
#                  in database fbtest_hc_ycsb, at YCSB_THREADS or, when that many
#                  do not fit, the largest multiple of 8 that fits (see below).
#   kv             memtier_benchmark 2.3.0 -t T -c C against `fairbench run
#                  --workload kv -t T -c C` for each TxC of KV_SHAPES (T × C
#                  connections), memtier's default 1:10 SET:GET ratio over KEYS
#                  keys written once by `fairbench load --workload kv`.
#   tpcc           go-tpc v1.0.12 `tpcc run -T V` against `fairbench run
#                  --workload tpcc --vus V`, no think time, TPCC_WAREHOUSES
#                  warehouses (10 terminals per warehouse, as TPC-C has them),
#                  each tool on a database of its own loaded once, then
#                  ANALYZEd (go-tpc's prepare leaves no planner statistics).
# The Redis cells use a redis-server of the script's own on REDIS_PORT (the
# loads fill whole databases; other users of the test Redis would skew the
# runs). Each tool runs DURATION seconds per repetition (go-ycsb is stopped with
# SIGINT, on which it prints its final figures), the order alternating; REPS
# pairs per cell.
#
# Kept per run, under /usr/bin/time: throughput (ops/s; tpmC for tpcc), p99
# latency in ms (YCSB: READ; kv: all commands; tpcc: New-Order), client CPU
# seconds (user + sys, start-up included) and peak resident memory. Once per
# cell fairbench also runs with 1 client, for its memory per client:
# (peak RSS at N clients − peak RSS at 1) / N. Printed per cell: the medians,
# the paired ratio fairbench/peer of throughput and of CPU per operation
# (geometric mean and 95 % interval, bench/ratio.awk) and fairbench's KB per
# client. Rows in bench/out/concurrency-<stamp>.csv (cell,tool,rep,ops/s,
# p99 ms,cpu s,operations,rss KB,clients), every output in bench/out/concurrency-<stamp>/.
#
# PostgreSQL: PG_SERVER=private [default] starts a cluster of the script's own
# on PG_PORT (bench/lib.sh start_private_postgres, the newest server binaries
# installed, default settings but max_connections=PG_MAX_CONNECTIONS), stopped at
# the end, so that the studies' 128 YCSB threads fit; PG_SERVER=test uses the
# PostgreSQL test server, whose max_connections (100) is left as it is. Either
# way a cell asks max_connections − the reserved slots − the connections open
# now − 1 (fairbench's own) − PG_HEADROOM (left for the server's other users);
# ycsb-postgres runs at the largest multiple of 8 within that, tpcc stops with
# an error if its VUs do not fit.
#
# Environment (defaults in brackets): CELLS ["ycsb-redis ycsb-postgres kv
# tpcc"], DURATION [15] s, REPS [2], YCSB_THREADS [128], RECORDS [100000],
# KV_SHAPES ["4x50 8x100"], KEYS [100000], TPCC_VUS [50], TPCC_WAREHOUSES [5],
# REDIS_PORT [6394], PG_SERVER [private], PG_PORT [5439], PG_MAX_CONNECTIONS [300],
# PG_HEADROOM [16].
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CELLS=${CELLS:-ycsb-redis ycsb-postgres kv tpcc}; DURATION=${DURATION:-15}; REPS=${REPS:-2}
YCSB_THREADS=${YCSB_THREADS:-128}; RECORDS=${RECORDS:-100000}; KV_SHAPES=${KV_SHAPES:-4x50 8x100}; KEYS=${KEYS:-100000}
TPCC_VUS=${TPCC_VUS:-50}; TPCC_WAREHOUSES=${TPCC_WAREHOUSES:-5}; REDIS_PORT=${REDIS_PORT:-6394}; PG_HEADROOM=${PG_HEADROOM:-16}
PG_SERVER=${PG_SERVER:-private}; PG_PORT=${PG_PORT:-5439}; PG_MAX_CONNECTIONS=${PG_MAX_CONNECTIONS:-300}
require_positive DURATION REPS YCSB_THREADS RECORDS KEYS TPCC_VUS TPCC_WAREHOUSES REDIS_PORT PG_PORT PG_MAX_CONNECTIONS
case $PG_SERVER in private | test) ;; *) die "PG_SERVER must be private or test (got '$PG_SERVER')" ;; esac
[ "${#PG_PORT}" -le 5 ] && [ "$PG_PORT" -le 65535 ] || die "PG_PORT must be a TCP port, 1–65535 (got '$PG_PORT')"
# PostgreSQL's own ceiling on max_connections
[ "${#PG_MAX_CONNECTIONS}" -le 6 ] && [ "$PG_MAX_CONNECTIONS" -le 262143 ] || die "PG_MAX_CONNECTIONS must be 1–262143, PostgreSQL's limit (got '$PG_MAX_CONNECTIONS')"
is_uint "$PG_HEADROOM" || die "PG_HEADROOM must be a whole number (got '$PG_HEADROOM')"
for c in $CELLS; do case $c in ycsb-redis | ycsb-postgres | kv | tpcc) ;; *) die "CELLS: unknown cell '$c' (ycsb-redis, ycsb-postgres, kv, tpcc)" ;; esac; done
for s in $KV_SHAPES; do [[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "KV_SHAPES: '$s' is not THREADSxCONNECTIONS (e.g. 4x50)"; done
has_cell() { [[ " $CELLS " == *" $1 "* ]]; }
[ -x /usr/bin/time ] || apt_install time

# summarize CSV — the table of a run's rows (or of several runs' rows put together)
summarize() {
    local CSV=$1 k peer r1 r2 cpu_p cpu_f per
    # CPU µs per operation, for ratio.awk
    awk -F, '$7 > 0 {print $1 "," $2 "," $3 "," $6 / $7 * 1e6}' "$CSV" >"$CSV.cpu"
    # med CELL TOOL FIELD — the median of FIELD over the cell's runs by TOOL
    med() { grep "^$1,$2," "$CSV" | cut -d, -f"$3" | sort -g | awk '{a[NR]=$1} END {if (NR) print (a[int((NR+1)/2)] + a[int(NR/2)+1]) / 2; else print "-"}'; }
    printf '%-16s %-8s %10s %10s   %-22s %8s %8s   %7s %7s %-22s  %s\n' cell peer peer fairbench "fb/peer [95% CI]" \
        "p99 peer" "p99 fb" "µs/op p" "µs/op f" "CPU/op fb/peer" "fb KB/client"
    while IFS= read -r k; do
        peer=$(grep "^$k," "$CSV" | cut -d, -f2 | grep -v '^fairbench' | head -1)
        r1=$(grep "^$k," "$CSV" | awk -F, -v ref="$peer" -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5 | sed -E 's/,/ [/; s/,/–/; s/$/]/')
        r2=$(grep "^$k," "$CSV.cpu" | awk -F, -v ref="$peer" -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5 | sed -E 's/,/ [/; s/,/–/; s/$/]/')
        cpu_p=$(CSV=$CSV.cpu med "$k" "$peer" 4)
        cpu_f=$(CSV=$CSV.cpu med "$k" fairbench 4)
        per=$(awk -v n="$(med "$k" fairbench 8)" -v one="$(med "$k" fairbench-1 8)" -v c="$(med "$k" fairbench 9)" 'BEGIN {printf "%.0f", (n - one) / c}')
        printf '%-16s %-8s %10.0f %10.0f   %-22s %8.1f %8.1f   %7.1f %7.1f %-22s  %s (RSS %d MB at %s, %d MB at 1)\n' "$k" "$peer" "$(med "$k" "$peer" 4)" \
            "$(med "$k" fairbench 4)" "$r1" "$(med "$k" "$peer" 5)" "$(med "$k" fairbench 5)" "$cpu_p" "$cpu_f" "$r2" "$per" \
            $(($(med "$k" fairbench 8) / 1024)) "$(med "$k" fairbench 9)" $(($(med "$k" fairbench-1 8) / 1024))
    done < <(cut -d, -f1 "$CSV" | awk '!seen[$0]++')
    echo "throughput: ops/s (tpcc: tpmC), median over the pairs; p99 in ms (ycsb READ, kv all, tpcc New-Order), median; µs/op: client CPU (user+sys,"
    echo "start-up included) per operation, median; KB/client: fairbench's (peak RSS at N − at 1) / N; rows: $CSV"
}
if [ -n "${SUMMARY:-}" ]; then
    [ -f "$SUMMARY" ] || die "SUMMARY=$SUMMARY: no such file"
    summarize "$SUMMARY"
    exit 0
fi

[ -f .test-env ] || start_test_servers
bash scripts/build.sh >/dev/null || die "scripts/build.sh failed"
FB=$ROOT/fairbench
GOYCSB=${GOYCSB:-$(bash scripts/install-go-ycsb.sh "$ROOT/.bin")} || die "go-ycsb could not be built"
MEMTIER=${MEMTIER:-$(bash scripts/install-memtier.sh "$ROOT/.bin")} || die "memtier_benchmark could not be built"
GOTPC=${GOTPC:-$(bash scripts/install-go-tpc.sh "$ROOT/.bin")} || die "go-tpc could not be built"
# go-ycsb's own workload files, from the module install-go-ycsb.sh built it from
WORKLOADA=$(go env GOMODCACHE)/github.com/pingcap/go-ycsb@$(cat "$(dirname "$GOYCSB")/go-ycsb.version")/workloads/workloada
[ -f "$WORKLOADA" ] || die "$WORKLOADA missing: run scripts/install-go-ycsb.sh, which downloads go-ycsb's module"

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$ROOT/bench/out/concurrency-$STAMP
CSV=$ROOT/bench/out/concurrency-$STAMP.csv
RESULTS=$OUT/fairbench-results.db
mkdir -p "$OUT"
REDIS_PID=
cleanup() {
    if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null || true; fi
    stop_private_postgres
}
trap cleanup EXIT

if [ "$PG_SERVER" = private ] && { has_cell ycsb-postgres || has_cell tpcc; }; then
    start_private_postgres "$PG_PORT" "$OUT/postgres" "max_connections=$PG_MAX_CONNECTIONS"
    PGURL=$PRIVATE_PG_URL
    echo "PostgreSQL: a private cluster on 127.0.0.1:$PG_PORT (max_connections $PG_MAX_CONNECTIONS), stopped at the end"
else
    PGURL=$(test_env FAIRBENCH_TEST_PG)
fi
# pg_db NAME — PGURL pointing at database NAME
pg_db() { sed -E "s#/[^/?]*(\?|\$)#/$1\1#" <<<"$PGURL"; }
# pg_part URL user|password|host|port
pg_part() {
    local rest=${1#*://} cred hp
    cred=${rest%%@*}; rest=${rest#*@}; hp=${rest%%/*}
    case $2 in user) echo "${cred%%:*}" ;; password) echo "${cred#*:}" ;; host) echo "${hp%:*}" ;; port) echo "${hp##*:}" ;; esac
}
fresh_pg_db() {
    PGOPTIONS="-c client_min_messages=warning" psql -Xq "$PGURL" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null \
        || die "could not create database $1 on PostgreSQL (the role needs CREATEDB)"
}
# pg_room — how many more client connections PostgreSQL takes now, less
# fairbench's own and PG_HEADROOM
pg_room() {
    local free
    free=$(psql -XAt "$PGURL" -c "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int - (SELECT count(*) FROM pg_stat_activity)") \
        || die "cannot read max_connections from PostgreSQL"
    echo $((free - 1 - PG_HEADROOM))
}

# measure NAME CMD... — CMD under /usr/bin/time, its output in $OUT/NAME.txt;
# sets CPU (user + sys seconds) and RSS (peak KB)
measure() {
    local name=$1
    shift
    /usr/bin/time -o "$OUT/$name.time" -f '%U %S %M' "$@" >"$OUT/$name.txt" 2>&1 || true
    read -r CPU RSS < <(tail -1 "$OUT/$name.time" | awk '{print $1 + $2, $3}')
}
# row CELL TOOL REP OPS/S P99 OPERATIONS CLIENTS — appends a CSV row (with CPU and RSS)
row() {
    [ -n "$4" ] && [ -n "$5" ] && [ -n "$6" ] || die "$2 printed no figures in cell $1 (rep $3): see $OUT"
    echo "$1,$2,$3,$4,$5,$CPU,$6,$RSS,$7" >>"$CSV"
}

# --- ycsb ----------------------------------------------------------------------
# fb_ycsb ENGINE → fairbench's target and table options; goycsb_db ENGINE → go-ycsb's database options
fb_ycsb() { case $1 in redis) echo "--target redis://127.0.0.1:$REDIS_PORT/2" ;; postgres) echo "--target $(pg_db fbtest_hc_ycsb) -p table=usertable_fairbench" ;; esac; }
goycsb_db() {
    case $1 in
    redis) echo "redis -p redis.addr=127.0.0.1:$REDIS_PORT -p redis.db=1" ;;
    postgres) echo "postgresql -p pg.host=$(pg_part "$PGURL" host) -p pg.port=$(pg_part "$PGURL" port) -p pg.user=$(pg_part "$PGURL" user) -p pg.db=fbtest_hc_ycsb -p pg.sslmode=disable -p table=usertable_goycsb" ;;
    esac
}
ycsb_fb() { # ENGINE NAME THREADS
    # shellcheck disable=SC2046
    measure "$2" "$FB" run --results "$RESULTS" $(fb_ycsb "$1") --workload ycsb -P "$WORKLOADA" -p recordcount="$RECORDS" \
        -p operationcount=1000000000 --threads "$3" --duration "${DURATION}s" --warmup 0s
    local f=$OUT/$2.txt
    THR=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9.eE+-]*\)$/\1/p' "$f")
    OPS=$(awk -F', ' -v thr="$THR" '$1 == "[OVERALL]" && $2 == "RunTime(ms)" {printf "%.0f", thr * $3 / 1000}' "$f")
    P99=$(awk -F', ' '$1 == "[READ]" && $2 == "99thPercentileLatency(us)" {print $3 / 1000}' "$f")
}
ycsb_go() { # ENGINE NAME THREADS
    # shellcheck disable=SC2046
    PGPASSWORD=$(pg_part "$PGURL" password) measure "$2" timeout --foreground -k 30 -s INT "$DURATION" "$GOYCSB" run $(goycsb_db "$1") -P "$WORKLOADA" \
        -p recordcount="$RECORDS" -p operationcount=1000000000 -p threadcount="$3"
    local f=$OUT/$2.txt
    read -r OPS THR < <(sed -n '/^Run finished/,$ s/^TOTAL *- Takes(s): [0-9.]*, Count: \([0-9]*\), OPS: \([0-9.]*\),.*/\1 \2/p' "$f") || true
    P99=$(sed -n '/^Run finished/,$ s/^READ *- .* 99th(us): \([0-9]*\),.*/\1/p' "$f" | awk '{print $1 / 1000}')
}
ycsb_cell() { # ENGINE THREADS
    local e=$1 n=$2 cell="ycsb-$1 $2" r j
    # shellcheck disable=SC2046
    "$FB" load $(fb_ycsb "$e") --workload ycsb -P "$WORKLOADA" -p recordcount="$RECORDS" --replace >"$OUT/$e-fairbench-load.txt" 2>&1 \
        || die "fairbench's YCSB load failed on $e (see $OUT/$e-fairbench-load.txt)"
    extra=(); [ "$e" != postgres ] || extra=(-p dropdata=true)
    # shellcheck disable=SC2046
    PGPASSWORD=$(pg_part "$PGURL" password) "$GOYCSB" load $(goycsb_db "$e") -P "$WORKLOADA" -p recordcount="$RECORDS" -p threadcount=16 "${extra[@]}" \
        >"$OUT/$e-go-ycsb-load.txt" 2>&1 || die "go-ycsb's load failed on $e (see $OUT/$e-go-ycsb-load.txt)"
    for r in $(seq 1 "$REPS"); do
        for j in 0 1; do
            if [ $(((r + j) % 2)) -eq 0 ]; then
                ycsb_fb "$e" "ycsb-$e-fairbench-$r" "$n"; row "$cell" fairbench "$r" "$THR" "$P99" "$OPS" "$n"
            else
                ycsb_go "$e" "ycsb-$e-go-ycsb-$r" "$n"; row "$cell" go-ycsb "$r" "$THR" "$P99" "$OPS" "$n"
            fi
            printf '.'
        done
    done
    ycsb_fb "$e" "ycsb-$e-fairbench-1client" 1; row "$cell" fairbench-1 1 "$THR" "$P99" "$OPS" 1
    printf ' %s\n' "$cell"
}

# --- kv --------------------------------------------------------------------------
kv_cell() { # THREADS CONNS-PER-THREAD
    local t=$1 c=$2 cell="kv $1x$2" r j f
    for r in $(seq 1 "$REPS"); do
        for j in 0 1; do
            f=kv-$t-$c
            if [ $(((r + j) % 2)) -eq 0 ]; then
                kv_fb "$f-fairbench-$r" "$t" "$c"; row "$cell" fairbench "$r" "$THR" "$P99" "$OPS" $((t * c))
            else
                measure "$f-memtier-$r" "$MEMTIER" -s 127.0.0.1 -p "$REDIS_PORT" --protocol=redis -t "$t" -c "$c" --ratio=1:10 \
                    --key-maximum=$((KEYS - 1)) --key-pattern=R:R --distinct-client-seed --test-time="$DURATION" --hide-histogram
                kv_totals "$OUT/$f-memtier-$r.txt"; row "$cell" memtier "$r" "$THR" "$P99" "$OPS" $((t * c))
            fi
            printf '.'
        done
    done
    kv_fb "kv-$t-$c-fairbench-1client" 1 1; row "$cell" fairbench-1 1 "$THR" "$P99" "$OPS" 1
    printf ' %s\n' "$cell"
}
kv_fb() { # NAME THREADS CONNS
    measure "$1" "$FB" run --results "$RESULTS" --target "redis://127.0.0.1:$REDIS_PORT/0" --workload kv --ratio 1:10 -t "$2" -c "$3" \
        --key-maximum $((KEYS - 1)) --test-time "${DURATION}s" --warmup 0s
    kv_totals "$OUT/$1.txt"
}
# kv_totals FILE — memtier's Totals line (fairbench prints the same): ops/s and p99 ms
kv_totals() {
    read -r THR P99 < <(awk '/^Totals/ {print $2, $7}' "$1") || true
    OPS=$(awk -v t="$THR" -v d="$DURATION" 'BEGIN {printf "%.0f", t * d}')
}

# --- tpcc --------------------------------------------------------------------------
# gotpc DATABASE ARGS... — go-tpc's arguments against database DATABASE (for measure, which runs no function)
gotpc() {
    local db=$1
    shift
    printf '%s\n' "$GOTPC" tpcc "$@" -d postgres -H "$(pg_part "$PGURL" host)" -P "$(pg_part "$PGURL" port)" -U "$(pg_part "$PGURL" user)" \
        -p "$(pg_part "$PGURL" password)" -D "$db" --conn-params sslmode=disable
}
tpcc_fb() { # NAME VUS
    measure "$1" "$FB" run --results "$RESULTS" --target "$(pg_db fbtest_hc_tpcc_fb)" --workload tpcc --warehouses "$TPCC_WAREHOUSES" \
        --vus "$2" --rampup 0s --duration "${DURATION}s"
    THR=$(sed -n 's/^tpmC ([^)]*): \([0-9.]*\).*/\1/p' "$OUT/$1.txt")
    P99=$(awk '$1 == "NEWORD" {print $7}' "$OUT/$1.txt")
}
tpcc_cell() {
    local v=$TPCC_VUS cell="tpcc $TPCC_VUS" r j room cmd db
    room=$(pg_room)
    [ "$v" -le "$room" ] || die "tpcc: $v VUs do not fit in PostgreSQL's free connections ($room after PG_HEADROOM=$PG_HEADROOM): lower TPCC_VUS"
    fresh_pg_db fbtest_hc_tpcc_fb
    "$FB" load --target "$(pg_db fbtest_hc_tpcc_fb)" --workload tpcc --warehouses "$TPCC_WAREHOUSES" --load-workers 4 >"$OUT/tpcc-fairbench-load.txt" 2>&1 \
        || die "fairbench's tpcc load failed (see $OUT/tpcc-fairbench-load.txt)"
    fresh_pg_db fbtest_hc_tpcc_gotpc
    mapfile -t cmd < <(gotpc fbtest_hc_tpcc_gotpc prepare --no-check --warehouses "$TPCC_WAREHOUSES" -T 4)
    "${cmd[@]}" >"$OUT/tpcc-go-tpc-load.txt" 2>&1 \
        || die "go-tpc's prepare failed (see $OUT/tpcc-go-tpc-load.txt)"
    # Planner statistics for both databases alike: go-tpc's prepare leaves none,
    # and its first run, on plans for empty tables, was 18× slower than its second.
    # (the role is no superuser on the private cluster: silence its warning per shared catalog)
    for db in fbtest_hc_tpcc_fb fbtest_hc_tpcc_gotpc; do
        PGOPTIONS="-c client_min_messages=error" psql -Xq "$(pg_db "$db")" -c ANALYZE || die "ANALYZE failed in database $db"
    done
    for r in $(seq 1 "$REPS"); do
        for j in 0 1; do
            if [ $(((r + j) % 2)) -eq 0 ]; then
                tpcc_fb "tpcc-fairbench-$r" "$v"
                row "$cell" fairbench "$r" "$THR" "$P99" "$(awk -v t="$THR" -v d="$DURATION" 'BEGIN {printf "%.0f", t / 0.45 / 60 * d}')" "$v"
            else
                mapfile -t cmd < <(gotpc fbtest_hc_tpcc_gotpc run --warehouses "$TPCC_WAREHOUSES" -T "$v" --time "${DURATION}s")
                measure "tpcc-go-tpc-$r" "${cmd[@]}"
                THR=$(sed -n 's/^tpmC: \([0-9.]*\),.*/\1/p' "$OUT/tpcc-go-tpc-$r.txt" | tail -1)
                P99=$(sed -n 's/^\[Summary\] NEW_ORDER - .* 99th(ms): \([0-9.]*\),.*/\1/p' "$OUT/tpcc-go-tpc-$r.txt" | tail -1)
                # New-Orders are 45 % of the mix: transactions = tpmC / 0.45 per minute
                row "$cell" go-tpc "$r" "$THR" "$P99" "$(awk -v t="$THR" -v d="$DURATION" 'BEGIN {printf "%.0f", t / 0.45 / 60 * d}')" "$v"
            fi
            printf '.'
        done
    done
    tpcc_fb tpcc-fairbench-1client 1
    row "$cell" fairbench-1 1 "$THR" "$P99" "$(awk -v t="$THR" -v d="$DURATION" 'BEGIN {printf "%.0f", t / 0.45 / 60 * d}')" 1
    printf ' %s\n' "$cell"
}

# --- the run -------------------------------------------------------------------------
printf 'concurrency.sh: cells [%s], %d s × %d pairs; nproc %d, load %s\n' "$CELLS" "$DURATION" "$REPS" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
if has_cell ycsb-redis || has_cell kv; then
    start_private_redis "$REDIS_PORT" "$OUT/redis"
fi
if has_cell kv; then
    "$FB" load --target "redis://127.0.0.1:$REDIS_PORT/0" --workload kv --key-maximum $((KEYS - 1)) >"$OUT/kv-load.txt" 2>&1 \
        || die "prefilling the kv keys failed (see $OUT/kv-load.txt)"
    for s in $KV_SHAPES; do kv_cell "${s%x*}" "${s#*x}"; done
fi
has_cell ycsb-redis && ycsb_cell redis "$YCSB_THREADS"
if has_cell ycsb-postgres; then
    fresh_pg_db fbtest_hc_ycsb
    room=$(pg_room)
    n=$YCSB_THREADS
    if [ "$n" -gt "$room" ]; then
        n=$((room / 8 * 8))
        [ "$n" -gt 0 ] || die "ycsb-postgres: PostgreSQL has no room for 8 more connections (PG_HEADROOM=$PG_HEADROOM)"
        printf 'ycsb-postgres: %d threads do not fit in PostgreSQL (%d connections free after PG_HEADROOM=%d): running %d\n' \
            "$YCSB_THREADS" "$room" "$PG_HEADROOM" "$n"
    fi
    ycsb_cell postgres "$n"
fi
has_cell tpcc && tpcc_cell

summarize "$CSV" | tee "$ROOT/bench/out/concurrency-$STAMP-summary.txt"
