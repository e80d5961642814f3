#!/usr/bin/env bash
# bench/analytics.sh — fairbench's ssb workload against clickhouse-client on the
# same ClickHouse (issue 25, "Peers and performance"): the time fairbench adds
# to each SSB query, and the rate at which it loads SSB's data.
#
#   bash bench/analytics.sh                       # scale 1, 5 tries, 3 rounds, 2 load reps: ~10 min on 2 vCPUs
#   TRIES=1 ROUNDS=15 REPS=1 bash bench/analytics.sh   # pairs ~1 s apart: steadier paired ratios on a busy host
#   SCALE=0.1 QUERIES="Q1.1 Q4.3" REPS=0 bash bench/analytics.sh
#
# Server: a ClickHouse on CH_HOST:CH_PORT (native protocol), as user CH_USER
# [default] with CH_PASSWORD [none]; the test server is Debian's 18.16 on
# 127.0.0.1:9001. Everything happens in the database CH_DB, which the script
# creates (with a table bench_analytics_sh that says so) and drops at the end; it
# refuses an existing CH_DB it did not make.
#
# 1. Load rate. REPS repetitions, the order alternating (fairbench first in odd
#    repetitions), of
#      fairbench load --target clickhouse://USER@HOST:PORT/CH_DB --workload ssb --scale SCALE
#    from no SSB tables (fairbench's own are removed first with `fairbench load
#    --clean`, untimed; a log that says "reusing" stops the script), whose rate is
#    fairbench's own log line "ssb: loaded N rows into T in S s (R rows/s)" for
#    T = lineorder and lineorder_flat (on 18.16 fairbench's generator makes the
#    flat rows and fairbench bulk-loads them on min(nproc, 8) sessions), and
#      clickhouse-client --query "INSERT INTO cc_T FORMAT TSV" < T.tsv
#    into an empty `CREATE TABLE cc_T AS T`, timed around the client process
#    (rate = rows / wall seconds), where T.tsv is fairbench's first load of T
#    dumped once with `SELECT * FROM T FORMAT TSV` (untimed): the same rows.
#    With REPS=0 the data is loaded once (or fairbench's earlier load of the same
#    scale reused) and no load is compared.
# 2. Per-query time. Background merges are waited for (up to 120 s), then for
#    each of ROUNDS rounds and each query, both tools back to back on fairbench's
#    loaded data, the order alternating by round and query, each TRIES tries in
#    a row on one connection:
#      fairbench run --target URL --workload ssb --scale SCALE --tries TRIES --queries Qx.y --results F
#        (per-try seconds from `fairbench report --results F --all --format clickbench`)
#      clickhouse-client --time --multiquery --query "SQL; SQL; …" (TRIES times the same text)
#        (the client-side elapsed seconds it prints to stderr per query, ms resolution)
#    The texts are fairbench's own: `FAIRBENCH_PRINT_SSB=1 go test
#    ./internal/workload/ssb -run TestPrintFlatQueries -v` prints each query's
#    flat ClickHouse 18.16 text (the one fairbench runs on that server).
#    Printed per query: the median over all ROUNDS × TRIES tries of each tool,
#    their ratio fairbench/client, the difference in ms, the paired ratio over
#    rounds (bench/ratio.awk on the per-round medians, 95 % interval), the
#    ratio of each tool's best try (the hot time), and the verdict against the
#    target "fairbench's overhead ≤ 5 % or ≤ 2 ms, whichever is larger" (PASS
#    when median_fb − median_client ≤ max(0.05 × median_client, 2 ms)); then
#    the geometric means of the three ratios over the queries and the PASS count.
#
# Environment (defaults in brackets): SCALE [1] (6 000 000 lineorder rows per
# unit); TRIES [5]; ROUNDS [3]; REPS load repetitions per tool, 0 skips the load
# comparison [2]; QUERIES [all 13: Q1.1 … Q4.3]; CH_HOST [127.0.0.1]; CH_PORT
# [9001]; CH_USER [default]; CH_PASSWORD []; CH_DB [fbbench_an]; LOAD_WORKERS,
# fairbench's --load-workers [its default, GOMAXPROCS]; KEEP_TSV=1 keeps
# the dumped TSV files [removed]; OUT_DIR [bench/out].
# Rows in bench/out/analytics-<stamp>.csv (kind,key,tool,rep,try,value[,rows,
# seconds]: kind "query" with seconds per try, kind "load" with rows/s, rows and
# seconds, kind "loadcpu" with a load's client CPU seconds, user + sys from
# /usr/bin/time, and its peak RSS in kB); every output in
# bench/out/analytics-<stamp>/; the printed summary also in
# bench/out/analytics-<stamp>-summary.txt.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SCALE=${SCALE:-1}; TRIES=${TRIES:-5}; ROUNDS=${ROUNDS:-3}; REPS=${REPS:-2}
CH_HOST=${CH_HOST:-127.0.0.1}; CH_PORT=${CH_PORT:-9001}; CH_USER=${CH_USER:-default}; CH_PASSWORD=${CH_PASSWORD:-}
CH_DB=${CH_DB:-fbbench_an}; QUERIES=${QUERIES:-all}; KEEP_TSV=${KEEP_TSV:-0}; OUT_DIR=${OUT_DIR:-$ROOT/bench/out}
require_positive TRIES ROUNDS CH_PORT
[ -z "${LOAD_WORKERS:-}" ] || require_positive LOAD_WORKERS
is_uint "$REPS" || die "REPS must be a whole number ≥ 0 (got '$REPS')"
if ! [[ $SCALE =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v s="$SCALE" 'BEGIN {exit !(s >= 0.001)}'; then
    die "SCALE must be a number ≥ 0.001 (got '$SCALE')"
fi
[[ $CH_DB =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "CH_DB must be a plain identifier (got '$CH_DB')"
command -v clickhouse-client >/dev/null 2>&1 || apt_install clickhouse-client
command -v jq >/dev/null 2>&1 || apt_install jq

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$OUT_DIR/analytics-$STAMP
CSV=$OUT_DIR/analytics-$STAMP.csv
mkdir -p "$OUT"
log() { printf '%s\n' "$*"; }

CLIENT=(clickhouse-client --host "$CH_HOST" --port "$CH_PORT" --user "$CH_USER")
[ -z "$CH_PASSWORD" ] || CLIENT+=(--password "$CH_PASSWORD")
chc() { "${CLIENT[@]}" "$@"; }
chq() { chc --database "$CH_DB" --query "$1"; }
cred=$CH_USER; [ -z "$CH_PASSWORD" ] || cred=$CH_USER:$CH_PASSWORD
TARGET="clickhouse://$cred@$CH_HOST:$CH_PORT/$CH_DB"
chc --query 'SELECT 1' >/dev/null || die "cannot reach ClickHouse at $CH_HOST:$CH_PORT with clickhouse-client"
VERSION=$(chc --query 'SELECT version()')

# --- the database -------------------------------------------------------------
# The script drops CH_DB at the end, so it only takes one it made: a database it
# creates carries the table bench_analytics_sh; an existing CH_DB without it
# (someone else's, perhaps with fairbench's SSB tables in it) stops the script.
if [ "$(chc --query "SELECT count() FROM system.databases WHERE name = '$CH_DB'")" != 0 ]; then
    [ "$(chc --query "SELECT count() FROM system.tables WHERE database = '$CH_DB' AND name = 'bench_analytics_sh'")" = 1 ] \
        || die "database $CH_DB exists and was not made by this script (no table bench_analytics_sh): set CH_DB to another name"
else
    chc --query "CREATE DATABASE $CH_DB"
    chc --query "CREATE TABLE $CH_DB.bench_analytics_sh (stamp String) ENGINE = TinyLog"
    chc --query "INSERT INTO $CH_DB.bench_analytics_sh VALUES ('$STAMP')"
fi
cleanup() {
    chc --query "DROP DATABASE IF EXISTS $CH_DB" || printf '%s: could not drop database %s\n' "$BENCH_NAME" "$CH_DB" >&2
    if [ "$KEEP_TSV" != 1 ]; then rm -f "$OUT"/*.tsv; fi
}
trap cleanup EXIT

# --- tools --------------------------------------------------------------------
go build -o "$ROOT/fairbench" ./cmd/fairbench || die "go build failed"
FB=$ROOT/fairbench
FAIRBENCH_PRINT_SSB=1 go test ./internal/workload/ssb -run TestPrintFlatQueries -v >"$OUT/queries.txt" 2>&1 \
    || die "could not print fairbench's SSB texts (output: $OUT/queries.txt)"
declare -A SQL=()
ALL=()
while IFS=$'\t' read -r name text; do
    SQL[$name]=$text
    ALL+=("$name")
done < <(grep -E $'^Q[0-9]\\.[0-9]\t' "$OUT/queries.txt")
[ ${#ALL[@]} -eq 13 ] || die "expected 13 SSB texts from the test, got ${#ALL[@]} (output: $OUT/queries.txt)"
if [ "$QUERIES" = all ]; then QS=("${ALL[@]}"); else read -r -a QS <<<"${QUERIES//,/ }"; fi
for q in "${QS[@]}"; do [ -n "${SQL[$q]:-}" ] || die "QUERIES: unknown query '$q' (${ALL[*]})"; done

log "analytics.sh: ClickHouse $VERSION at $CH_HOST:$CH_PORT, database $CH_DB; scale $SCALE; $TRIES tries × $ROUNDS rounds of ${#QS[@]} queries; $REPS load reps"
log "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); fairbench $(git rev-parse --short HEAD); clickhouse-client $(clickhouse-client --version 2>/dev/null | sed 's/.*version //')"
log "target $(redact "$TARGET"); output $OUT"

# --- 1. load rate -------------------------------------------------------------
FLAT_TABLES=(lineorder lineorder_flat)
# fb_load REP — fairbench's load from no SSB tables; CSV rows per table
fb_load() {
    local r=$1 f=$OUT/load-fairbench-$1.txt t line
    "$FB" load --target "$TARGET" --workload ssb --scale "$SCALE" --clean >"$OUT/clean-$r.txt" 2>&1 \
        || die "fairbench load --clean failed (output: $OUT/clean-$r.txt)"
    [ "$(chq "SELECT count() FROM system.tables WHERE database = '$CH_DB' AND name IN ('lineorder', 'lineorder_flat')")" = 0 ] \
        || die "fairbench load --clean left lineorder or lineorder_flat in $CH_DB (output: $OUT/clean-$r.txt)"
    /usr/bin/time -f '%U %S %M' -o "$OUT/time-fairbench-$r.txt" \
        "$FB" load --target "$TARGET" --workload ssb --scale "$SCALE" ${LOAD_WORKERS:+--load-workers "$LOAD_WORKERS"} >"$f" 2>&1 || die "fairbench load failed (output: $f)"
    ! grep -q reusing "$f" || die "fairbench reused data instead of loading it (output: $f)"
    awk -v r="$r" '{printf "loadcpu,all,fairbench,%s,,%.2f,%d\n", r, $1 + $2, $3}' "$OUT/time-fairbench-$r.txt" >>"$CSV"
    for t in "${FLAT_TABLES[@]}"; do
        line=$(grep -E "ssb: loaded [0-9]+ rows into $t in " "$f" | tail -1)
        [ -n "$line" ] || die "no 'ssb: loaded … rows into $t' line in $f"
        sed -E 's/.*loaded ([0-9]+) rows into ([a-z_]+) in ([0-9.]+) s \(([0-9.]+) rows\/s\).*/load,\2,fairbench,'"$r"',,\4,\1,\3/' <<<"$line" >>"$CSV"
        [ "$(chq "SELECT count() FROM $t")" = "$(sed -E 's/.*loaded ([0-9]+) rows.*/\1/' <<<"$line")" ] || die "$t: row count differs from fairbench's log ($f)"
    done
}
# cc_load REP — clickhouse-client's INSERT of the dumped rows into empty copies
cc_load() {
    local r=$1 t n t0 t1 secs
    for t in "${FLAT_TABLES[@]}"; do
        chq "DROP TABLE IF EXISTS cc_$t"
        chq "CREATE TABLE cc_$t AS $t"
        n=${ROWS[$t]}
        t0=$(date +%s.%N)
        /usr/bin/time -f '%U %S %M' -o "$OUT/time-client-$t-$r.txt" \
            "${CLIENT[@]}" --database "$CH_DB" --query "INSERT INTO cc_$t FORMAT TSV" <"$OUT/$t.tsv" >"$OUT/load-client-$t-$r.txt" 2>&1 \
            || die "clickhouse-client INSERT into cc_$t failed (output: $OUT/load-client-$t-$r.txt)"
        t1=$(date +%s.%N)
        [ "$(chq "SELECT count() FROM cc_$t")" = "$n" ] || die "cc_$t: not $n rows after the INSERT"
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
        awk -v t="$t" -v r="$r" -v n="$n" -v s="$secs" 'BEGIN {printf "load,%s,clickhouse-client,%s,,%.0f,%d,%s\n", t, r, n / s, n, s}' >>"$CSV"
        chq "DROP TABLE cc_$t"
    done
    # the client's CPU (user + sys) over its INSERTs and its largest peak RSS
    cat "$OUT"/time-client-*-"$r".txt | awk -v r="$r" '{c += $1 + $2; if ($3 > m) m = $3} END {printf "loadcpu,all,clickhouse-client,%s,,%.2f,%d\n", r, c, m}' >>"$CSV"
}
declare -A ROWS=()
if [ "$REPS" -gt 0 ]; then
    for r in $(seq 1 "$REPS"); do
        printf 'load rep %s: ' "$r"
        if [ $((r % 2)) -eq 1 ]; then order=(fairbench clickhouse-client); else order=(clickhouse-client fairbench); fi
        for tool in "${order[@]}"; do
            if [ "$tool" = fairbench ]; then
                fb_load "$r"
                if [ ${#ROWS[@]} -eq 0 ]; then
                    # fairbench's first load, dumped once: the client's input
                    for t in "${FLAT_TABLES[@]}"; do
                        chq "SELECT * FROM $t FORMAT TSV" >"$OUT/$t.tsv"
                        ROWS[$t]=$(wc -l <"$OUT/$t.tsv")
                    done
                fi
            else
                cc_load "$r"
            fi
            printf '%s ' "$tool"
        done
        echo
    done
else
    "$FB" load --target "$TARGET" --workload ssb --scale "$SCALE" >"$OUT/load-fairbench.txt" 2>&1 || die "fairbench load failed (output: $OUT/load-fairbench.txt)"
fi

# --- 2. per-query time --------------------------------------------------------
for _ in $(seq 1 120); do
    [ "$(chc --query "SELECT count() FROM system.merges WHERE database = '$CH_DB'")" != 0 ] || break
    sleep 1
done
# fb_query Q ROUND — fairbench's TRIES tries of Q; CSV rows per try
fb_query() {
    local q=$1 r=$2 f=$OUT/query-$1-fairbench-$2 i=0 v
    "$FB" run --target "$TARGET" --workload ssb --scale "$SCALE" --tries "$TRIES" --queries "$q" --results "$f.db" >"$f.txt" 2>&1 \
        || die "fairbench run of $q failed (output: $f.txt)"
    "$FB" report --results "$f.db" --all --format clickbench >"$f.json" 2>>"$f.txt" || die "fairbench report failed (output: $f.txt)"
    while read -r v; do
        i=$((i + 1))
        [ "$v" != null ] || die "fairbench: try $i of $q failed (output: $f.txt)"
        echo "query,$q,fairbench,$r,$i,$v" >>"$CSV"
    done < <(jq -r '.result[0][]' "$f.json")
    [ "$i" -eq "$TRIES" ] || die "fairbench: $i tries of $q in $f.json, not $TRIES"
}
# cc_query Q ROUND — clickhouse-client's TRIES tries of Q on one connection
cc_query() {
    local q=$1 r=$2 f=$OUT/query-$1-client-$2 i=0 v text=
    for _ in $(seq 1 "$TRIES"); do text+="${SQL[$q]};"$'\n'; done
    chc --database "$CH_DB" --time --multiquery --query "$text" >"$f.out" 2>"$f.time" \
        || die "clickhouse-client run of $q failed (output: $f.out, $f.time)"
    while read -r v; do
        i=$((i + 1))
        echo "query,$q,clickhouse-client,$r,$i,$v" >>"$CSV"
    done < <(grep -E '^[0-9]+\.[0-9]+$' "$f.time")
    [ "$i" -eq "$TRIES" ] || die "clickhouse-client: $i times for $q in $f.time, not $TRIES"
}
for r in $(seq 1 "$ROUNDS"); do
    printf 'round %s: ' "$r"
    k=0
    for q in "${QS[@]}"; do
        if [ $(((r + k) % 2)) -eq 1 ]; then fb_query "$q" "$r"; cc_query "$q" "$r"; else cc_query "$q" "$r"; fb_query "$q" "$r"; fi
        k=$((k + 1))
        printf '%s ' "$q"
    done
    echo
done

# --- summary ------------------------------------------------------------------
# median KIND KEY TOOL [REP] — median of the values (column 6) of the rows
median() {
    awk -F, -v k="$1" -v key="$2" -v t="$3" -v r="${4:-}" '$1 == k && $2 == key && $3 == t && (r == "" || $4 == r) {print $6}' "$CSV" |
        sort -g | awk '{a[NR] = $1} END {if (!NR) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
{
    for q in "${QS[@]}"; do
        for r in $(seq 1 "$ROUNDS"); do
            echo "$q,fairbench,$r,$(median query "$q" fairbench "$r")"
            echo "$q,clickhouse-client,$r,$(median query "$q" clickhouse-client "$r")"
        done
    done
} >"$OUT/query-rounds.csv"
awk -F, -v ref=clickhouse-client -v new=fairbench -f bench/ratio.awk "$OUT/query-rounds.csv" | sort >"$OUT/query-paired.csv"
{
    echo "per-query time: median of $ROUNDS rounds × $TRIES tries per tool, ms (SSB flat queries, scale $SCALE, ClickHouse $VERSION)"
    printf '%-6s %10s %10s %7s %9s   %-22s %10s   %s\n' query fairbench client fb/cc "diff ms" "paired [95 % interval]" "best fb/cc" "overhead ≤ max(5 %, 2 ms)"
    for q in "${QS[@]}"; do
        fb=$(median query "$q" fairbench); cc=$(median query "$q" clickhouse-client)
        paired=$(awk -F, -v q="$q" '$1 == q {if ($4 == "NA") print $3; else printf "%s [%s-%s]", $3, $4, $5}' "$OUT/query-paired.csv")
        best=$(awk -F, -v q="$q" '$1 == "query" && $2 == q {if (!($3 in m) || $6 < m[$3]) m[$3] = $6} END {printf "%.3f", m["fairbench"] / m["clickhouse-client"]}' "$CSV")
        awk -v q="$q" -v fb="$fb" -v cc="$cc" -v p="$paired" -v b="$best" 'BEGIN {
            d = fb - cc; lim = (0.05 * cc > 0.002) ? 0.05 * cc : 0.002
            printf "%-6s %10.1f %10.1f %7.3f %+9.1f   %-22s %10s   %s\n", q, fb * 1000, cc * 1000, fb / cc, d * 1000, p, b, (d <= lim ? "PASS" : "FAIL")
        }'
    done | tee "$OUT/query-table.txt"
    awk '{n++; s += log($4); c += log($6); b += log($(NF - 1)); if ($NF == "PASS") p++}
        END {printf "geometric mean over %d queries: fb/cc of the medians %.3f, paired %.3f, of the best tries %.3f; %d of %d PASS\n",
            n, exp(s / n), exp(c / n), exp(b / n), p, n}' "$OUT/query-table.txt"
    if [ "$REPS" -gt 0 ]; then
        echo
        echo "load rate: rows/s, median of $REPS reps per tool (fairbench: its log line; client: INSERT … FORMAT TSV of the same rows, wall time)"
        printf '%-15s %10s %12s %12s %7s   %s\n' table rows fairbench client fb/cc "paired [95 % interval]"
        awk -F, '$1 == "load" {print $2 "," $3 "," $4 "," $6}' "$CSV" >"$OUT/load-reps.csv"
        awk -F, -v ref=clickhouse-client -v new=fairbench -f bench/ratio.awk "$OUT/load-reps.csv" | sort >"$OUT/load-paired.csv"
        for t in "${FLAT_TABLES[@]}"; do
            fb=$(median load "$t" fairbench); cc=$(median load "$t" clickhouse-client)
            paired=$(awk -F, -v t="$t" '$1 == t {if ($4 == "NA") print $3; else printf "%s [%s-%s]", $3, $4, $5}' "$OUT/load-paired.csv")
            printf '%-15s %10s %12.0f %12.0f %7.3f   %s\n' "$t" "${ROWS[$t]}" "$fb" "$cc" "$(awk -v a="$fb" -v b="$cc" 'BEGIN {print a / b}')" "$paired"
        done
        for tool in fairbench clickhouse-client; do
            awk -F, -v t="$tool" '$1 == "loadcpu" && $3 == t {c += $6; if ($7 > m) m = $7; n++}
                END {printf "%-18s client CPU (user+sys) %.1f s per load (mean of %d), peak RSS %.0f MB\n", t, c / n, n, m / 1024}' "$CSV"
        done
        echo "(fairbench's CPU covers its whole load: the generator, all six tables and the flat rows; the client's covers its two INSERTs of ready TSV)"
    fi
    echo "rows: $CSV (kind,key,tool,rep,try,value[,rows,seconds]); outputs: $OUT"
} | tee "$OUT_DIR/analytics-$STAMP-summary.txt"
