#!/usr/bin/env bash
# bench/loads.sh — fairbench's analytical loads beside the engines' own bulk
# clients (issue 41, "Analytics loads"), in interleaved pairs:
#
#   ssb-postgres          fairbench load --workload ssb --scale SCALE on PostgreSQL
#                         vs psql's \copy lineorder FROM of the same rows (TSV)
#   clickbench-clickhouse fairbench load --workload clickbench --rows ROWS on ClickHouse
#                         vs clickhouse-client's INSERT INTO hits FORMAT TSV of the same rows
#
#   PG_URL=postgres://user:pw@127.0.0.1:5432/bench bash bench/loads.sh          # both, 2 pairs each
#   WHAT=clickbench-clickhouse ROWS=10000000 REPS=1 bash bench/loads.sh
#
# (SSB on ClickHouse is bench/analytics.sh's load part.) Each repetition runs
# both tools back to back, the order alternating (fairbench first in odd ones),
# each timed by /usr/bin/time: rows/s are rows / wall seconds of the whole
# process for the peer, and fairbench's own log line "loaded N rows into T in S s
# (R rows/s)" for the big table (lineorder, hits); client CPU is user + sys of
# the process, RSS its peak. fairbench's figures cover its whole load (for ssb,
# the generator and all five tables); the peer's its \copy or INSERT of a ready
# file, dumped once (untimed) from fairbench's first load, so both load the same
# rows. fairbench's own tables are dropped untimed (`fairbench load --clean`)
# before each of its loads; the peer loads into an empty copy of the table.
#
# Environment (defaults in brackets): WHAT [ssb-postgres clickbench-clickhouse];
# SCALE [1]; ROWS [1000000]; REPS [2]; LOAD_WORKERS, fairbench's --load-workers
# [its default, GOMAXPROCS]; PG_URL, a PostgreSQL where the user may CREATE
# DATABASE [FAIRBENCH_TEST_PG of ./.test-env]; PG_DB [fbbench_loads];
# CH_HOST [127.0.0.1]; CH_PORT [9001]; CH_USER [default]; CH_PASSWORD [];
# CH_DB [fbbench_loads]; OUT_DIR [bench/out]. The script creates PG_DB and CH_DB
# (each with a table bench_loads_sh that says so), refuses existing ones it did
# not make, and drops them at the end.
# Rows in bench/out/loads-<stamp>.csv: what,tool,rep,rows,rows_per_s,wall_s,cpu_s,rss_kb;
# the summary also in bench/out/loads-<stamp>-summary.txt.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
WHAT=${WHAT:-ssb-postgres clickbench-clickhouse}; SCALE=${SCALE:-1}; ROWS=${ROWS:-1000000}; REPS=${REPS:-2}
PG_DB=${PG_DB:-fbbench_loads}; CH_DB=${CH_DB:-fbbench_loads}; OUT_DIR=${OUT_DIR:-$ROOT/bench/out}
CH_HOST=${CH_HOST:-127.0.0.1}; CH_PORT=${CH_PORT:-9001}; CH_USER=${CH_USER:-default}; CH_PASSWORD=${CH_PASSWORD:-}
require_positive ROWS REPS CH_PORT
[ -z "${LOAD_WORKERS:-}" ] || require_positive LOAD_WORKERS
if ! [[ $SCALE =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v s="$SCALE" 'BEGIN {exit !(s >= 0.001)}'; then
    die "SCALE must be a number ≥ 0.001 (got '$SCALE')"
fi
for db in "$PG_DB" "$CH_DB"; do [[ $db =~ ^[a-z_][a-z0-9_]*$ ]] || die "PG_DB and CH_DB must be plain lower-case identifiers (got '$db')"; done
for w in $WHAT; do
    case $w in ssb-postgres | clickbench-clickhouse) ;; *) die "WHAT: unknown '$w' (ssb-postgres, clickbench-clickhouse)" ;; esac
done

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$OUT_DIR/loads-$STAMP
CSV=$OUT_DIR/loads-$STAMP.csv
mkdir -p "$OUT"
go build -o "$OUT/fairbench" ./cmd/fairbench || die "go build failed"
FB=$OUT/fairbench
WORKERS=()
[ -z "${LOAD_WORKERS:-}" ] || WORKERS=(--load-workers "$LOAD_WORKERS")
CLEANUPS=()
trap 'for c in "${CLEANUPS[@]}"; do eval "$c"; done; rm -f "$OUT"/*.tsv' EXIT

# timed NAME CMD... — runs CMD under /usr/bin/time into $OUT/NAME.time (wall user sys maxrss_kb)
timed() {
    local name=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$OUT/$name.time" "$@"
}
# record WHAT TOOL REP ROWS [ROWS_PER_S] — a CSV row from $OUT/WHAT-TOOL-REP.time
record() {
    awk -v w="$1" -v t="$2" -v r="$3" -v n="$4" -v rate="${5:-}" 'END {
        if (rate == "") rate = n / $1
        printf "%s,%s,%s,%d,%.0f,%.2f,%.2f,%d\n", w, t, r, n, rate, $1, $2 + $3, $4
    }' "$OUT/$1-$2-$3.time" >>"$CSV"
}
# fb_rate LOG TABLE — rows and rows/s of fairbench's log line for TABLE
fb_rate() {
    grep -E "loaded [0-9]+ rows into $2 in " "$1" | tail -1 | sed -E 's/.*loaded ([0-9]+) rows into [a-z_]+ in [0-9.]+ s \(([0-9.]+) rows\/s\).*/\1 \2/'
}

# --- PostgreSQL ---------------------------------------------------------------
ssb_postgres() {
    command -v psql >/dev/null 2>&1 || apt_install postgresql-client
    [ -n "${PG_URL:-}" ] || PG_URL=$(test_env FAIRBENCH_TEST_PG)
    local admin=$PG_URL db r tool n rate rows
    db=$(sed -E "s#^(postgres(ql)?://[^/]*)/[^?]*#\1/$PG_DB#" <<<"$PG_URL")
    pq() { psql "$db" -qAtX -v ON_ERROR_STOP=1 -c "$1"; }
    if [ "$(psql "$admin" -qAtX -c "SELECT count(*) FROM pg_database WHERE datname = '$PG_DB'")" != 0 ]; then
        [ "$(pq "SELECT count(*) FROM pg_tables WHERE tablename = 'bench_loads_sh'")" = 1 ] \
            || die "PostgreSQL database $PG_DB exists and was not made by this script: set PG_DB to another name"
    else
        psql "$admin" -qAtX -v ON_ERROR_STOP=1 -c "CREATE DATABASE $PG_DB" >/dev/null
        pq "CREATE TABLE bench_loads_sh (stamp text); INSERT INTO bench_loads_sh VALUES ('$STAMP')"
    fi
    # An autovacuum worker may still be in the database for a moment (and
    # WITH (FORCE) needs the right to end it): a few tries, a second apart.
    CLEANUPS+=("for _ in 1 2 3 4 5 6 7 8 9 10; do psql '$admin' -qAtX -c 'DROP DATABASE IF EXISTS $PG_DB' >/dev/null 2>&1 && break; sleep 1; done; [ \"\$(psql '$admin' -qAtX -c \"SELECT count(*) FROM pg_database WHERE datname = '$PG_DB'\")\" = 0 ] || echo 'could not drop database $PG_DB' >&2")
    echo "ssb-postgres: scale $SCALE, PostgreSQL $(pq 'SHOW server_version') at $(redact "$db")"
    rows=
    for r in $(seq 1 "$REPS"); do
        if [ $((r % 2)) -eq 1 ]; then order=(fairbench psql); else order=(psql fairbench); fi
        for tool in "${order[@]}"; do
            if [ "$tool" = fairbench ]; then
                "$FB" load --target "$db" --workload ssb --scale "$SCALE" --clean >"$OUT/ssb-clean-$r.txt" 2>&1 || die "fairbench load --clean failed ($OUT/ssb-clean-$r.txt)"
                timed ssb-postgres-fairbench-$r "$FB" load --target "$db" --workload ssb --scale "$SCALE" "${WORKERS[@]}" >"$OUT/ssb-fairbench-$r.txt" 2>&1 \
                    || die "fairbench load failed ($OUT/ssb-fairbench-$r.txt)"
                ! grep -q reusing "$OUT/ssb-fairbench-$r.txt" || die "fairbench reused data instead of loading it ($OUT/ssb-fairbench-$r.txt)"
                read -r n rate < <(fb_rate "$OUT/ssb-fairbench-$r.txt" lineorder)
                [ "$(pq 'SELECT count(*) FROM lineorder')" = "$n" ] || die "lineorder: row count differs from fairbench's log"
                if [ -z "$rows" ]; then
                    pq "\\copy lineorder TO '$OUT/lineorder.tsv'"
                    rows=$n
                fi
                record ssb-postgres fairbench "$r" "$n" "$rate"
            else
                [ -n "$rows" ] || die "internal: psql before the first fairbench load"
                pq "SET client_min_messages = warning; DROP TABLE IF EXISTS cc_lineorder; CREATE TABLE cc_lineorder (LIKE lineorder INCLUDING ALL)"
                timed ssb-postgres-psql-$r psql "$db" -qAtX -v ON_ERROR_STOP=1 -c "\\copy cc_lineorder FROM '$OUT/lineorder.tsv'" >"$OUT/ssb-psql-$r.txt" 2>&1 \
                    || die "psql \\copy failed ($OUT/ssb-psql-$r.txt)"
                [ "$(pq 'SELECT count(*) FROM cc_lineorder')" = "$rows" ] || die "cc_lineorder: not $rows rows after \\copy"
                pq "DROP TABLE cc_lineorder"
                record ssb-postgres psql "$r" "$rows"
            fi
        done
    done
}

# --- ClickHouse ---------------------------------------------------------------
clickbench_clickhouse() {
    command -v clickhouse-client >/dev/null 2>&1 || apt_install clickhouse-client
    local pw=() cred=$CH_USER r tool n rate rows target
    [ -z "$CH_PASSWORD" ] || { pw=(--password "$CH_PASSWORD"); cred=$CH_USER:$CH_PASSWORD; }
    local client=(clickhouse-client --host "$CH_HOST" --port "$CH_PORT" --user "$CH_USER" "${pw[@]}")
    chc() { "${client[@]}" "$@"; }
    chq() { chc --database "$CH_DB" --query "$1"; }
    target="clickhouse://$cred@$CH_HOST:$CH_PORT/$CH_DB"
    if [ "$(chc --query "SELECT count() FROM system.databases WHERE name = '$CH_DB'")" != 0 ]; then
        [ "$(chc --query "SELECT count() FROM system.tables WHERE database = '$CH_DB' AND name = 'bench_loads_sh'")" = 1 ] \
            || die "ClickHouse database $CH_DB exists and was not made by this script: set CH_DB to another name"
    else
        chc --query "CREATE DATABASE $CH_DB"
        chc --query "CREATE TABLE $CH_DB.bench_loads_sh (stamp String) ENGINE = TinyLog"
    fi
    CLEANUPS+=("clickhouse-client --host '$CH_HOST' --port '$CH_PORT' --user '$CH_USER' ${CH_PASSWORD:+--password '$CH_PASSWORD'} --query 'DROP DATABASE IF EXISTS $CH_DB' || echo 'could not drop $CH_DB' >&2")
    echo "clickbench-clickhouse: $ROWS synthetic rows, ClickHouse $(chc --query 'SELECT version()') at $CH_HOST:$CH_PORT"
    rows=
    for r in $(seq 1 "$REPS"); do
        if [ $((r % 2)) -eq 1 ]; then order=(fairbench clickhouse-client); else order=(clickhouse-client fairbench); fi
        for tool in "${order[@]}"; do
            if [ "$tool" = fairbench ]; then
                "$FB" load --target "$target" --workload clickbench --rows "$ROWS" --clean >"$OUT/cb-clean-$r.txt" 2>&1 || die "fairbench load --clean failed ($OUT/cb-clean-$r.txt)"
                timed clickbench-clickhouse-fairbench-$r "$FB" load --target "$target" --workload clickbench --rows "$ROWS" "${WORKERS[@]}" >"$OUT/cb-fairbench-$r.txt" 2>&1 \
                    || die "fairbench load failed ($OUT/cb-fairbench-$r.txt)"
                ! grep -q reusing "$OUT/cb-fairbench-$r.txt" || die "fairbench reused data instead of loading it ($OUT/cb-fairbench-$r.txt)"
                read -r n rate < <(fb_rate "$OUT/cb-fairbench-$r.txt" hits)
                [ "$(chq 'SELECT count() FROM hits')" = "$n" ] || die "hits: row count differs from fairbench's log"
                if [ -z "$rows" ]; then
                    chq "SELECT * FROM hits FORMAT TSV" >"$OUT/hits.tsv"
                    rows=$n
                fi
                record clickbench-clickhouse fairbench "$r" "$n" "$rate"
            else
                [ -n "$rows" ] || die "internal: the client before the first fairbench load"
                chq "DROP TABLE IF EXISTS cc_hits"
                chq "CREATE TABLE cc_hits AS hits"
                timed clickbench-clickhouse-clickhouse-client-$r "${client[@]}" --database "$CH_DB" --query "INSERT INTO cc_hits FORMAT TSV" <"$OUT/hits.tsv" >"$OUT/cb-client-$r.txt" 2>&1 \
                    || die "clickhouse-client INSERT failed ($OUT/cb-client-$r.txt)"
                [ "$(chq 'SELECT count() FROM cc_hits')" = "$rows" ] || die "cc_hits: not $rows rows after the INSERT"
                chq "DROP TABLE cc_hits"
                record clickbench-clickhouse clickhouse-client "$r" "$rows"
            fi
        done
    done
}

echo "loads.sh: $WHAT; $REPS pairs each; nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); fairbench $(git rev-parse --short HEAD)"
for w in $WHAT; do
    case $w in
    ssb-postgres) ssb_postgres ;;
    clickbench-clickhouse) clickbench_clickhouse ;;
    esac
done

# --- summary ------------------------------------------------------------------
{
    echo "rows/s of the big table (fairbench: its log line; peer: rows / wall s), client CPU s and peak RSS MB; medians over $REPS reps"
    printf '%-22s %-18s %10s %12s %9s %9s %9s\n' what tool rows rows/s wall_s cpu_s rss_MB
    for w in $WHAT; do
        for tool in $(awk -F, -v w="$w" '$1 == w {print $2}' "$CSV" | sort -u); do
            awk -F, -v w="$w" -v t="$tool" '$1 == w && $2 == t {n++; rows = $4; rate[n] = $5; wall[n] = $6; cpu[n] = $7; rss[n] = $8}
                function med(a,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
                END {printf "%-22s %-18s %10d %12.0f %9.1f %9.1f %9.0f\n", w, t, rows, med(rate), med(wall), med(cpu), med(rss) / 1024}' "$CSV"
        done
        # paired ratio fairbench / peer of rows/s over the reps
        awk -F, -v w="$w" '$1 == w {print $2 "," $2 "," $3 "," $5}' "$CSV" |
            awk -F, -v w="$w" '{v[$1, $3] = $4; tools[$1]; reps[$3]}
                END {for (r in reps) for (t in tools) if (t != "fairbench" && (("fairbench", r) in v) && ((t, r) in v)) {s += log(v["fairbench", r] / v[t, r]); n++; peer = t}
                    if (n) printf "%-22s fairbench / %s rows/s: geometric mean of %d pairs %.3f\n", w, peer, n, exp(s / n)}'
    done
    echo "rows: $CSV (what,tool,rep,rows,rows_per_s,wall_s,cpu_s,rss_kb); outputs: $OUT"
} | tee "$OUT_DIR/loads-$STAMP-summary.txt"
