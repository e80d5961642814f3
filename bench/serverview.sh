#!/usr/bin/env bash
# bench/serverview.sh — what the server view costs the run it watches
# (issue 53): tpcb select-only on PostgreSQL with the server view off and
# with it at an interval, in interleaved pairs.
#
#   bash bench/serverview.sh                      # 4 pairs of 8 s, interval 1s
#   REPS=8 DURATION=10 INTERVAL=200ms bash bench/serverview.sh
#
# Each pair runs the study once with server_view = "off" and once with
# server_view = INTERVAL, back to back against the same server and tables
# (the order alternating), so that what the machine does at that moment
# touches both. Printed: the paired ratio of tps with/without and its 95 %
# interval (bench/ratio.awk); a ratio whose interval holds 1 is not shown to
# differ. Rows in bench/out/serverview-<stamp>.csv.
#
# PG_URL [FAIRBENCH_TEST_PG of .test-env]: the script creates its own
# database fbtest_serverview_bench there (scale SCALE [10]) and drops it at
# the end. CLIENTS [8], THREADS [2].
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${DURATION:-8}; DURATION=${DURATION%s}
REPS=${REPS:-4}
SCALE=${SCALE:-10}
CLIENTS=${CLIENTS:-8}
THREADS=${THREADS:-2}
INTERVAL=${INTERVAL:-1s}
OUT_DIR=${OUT_DIR:-bench/out}
require_positive DURATION REPS SCALE CLIENTS THREADS
[[ $INTERVAL =~ ^[0-9]+(ms|s)$ ]] || die "INTERVAL must be a duration such as 1s or 200ms (got '$INTERVAL')"

[ -n "${PG_URL:-}" ] || start_test_servers
PG_URL=${PG_URL:-$(test_env FAIRBENCH_TEST_PG)}
command -v psql >/dev/null || die "psql is not installed"
DB=fbtest_serverview_bench
BENCH_URL=$(sed -E "s#^(postgres(ql)?://[^/]*)/[^?]*#\1/$DB#" <<<"$PG_URL")

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RUN_DIR=$OUT_DIR/serverview-$STAMP
CSV=$OUT_DIR/serverview-$STAMP.csv
mkdir -p "$RUN_DIR"
FB=$RUN_DIR/fairbench
go build -o "$FB" ./cmd/fairbench

psql "$PG_URL" -qAtc "DROP DATABASE IF EXISTS $DB" >/dev/null
psql "$PG_URL" -qAtc "CREATE DATABASE $DB" >/dev/null || die "cannot create database $DB on $(redact "$PG_URL")"
trap 'psql "$PG_URL" -qAtc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true' EXIT

# study VIEW — the study file with server_view = VIEW
study() {
    cat <<EOF
[study]
name = "serverview-cost"
repetitions = 1
warmup = "1s"
duration = "${DURATION}s"
cooldown = "0s"

[[target]]
name = "pg"
url = "$BENCH_URL"
server_view = "$1"

[[workload]]
kind = "tpcb"
mode = "select-only"
scale = $SCALE
query_mode = "prepared"
vacuum = false
clients = $CLIENTS
threads = $THREADS
EOF
}
study off >"$RUN_DIR/off.toml"
study "$INTERVAL" >"$RUN_DIR/on.toml"

# tps RESULTS — the median tps of the results file's one cell
tps() { "$FB" report --results "$1" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "median") c = i; next } { print $c }'; }

# Load the tables once (not measured).
"$FB" run --results "$RUN_DIR/load.db" "$RUN_DIR/off.toml" >"$RUN_DIR/load.log" 2>&1 || die "the first run failed: see $RUN_DIR/load.log"

echo "cell,tool,rep,tps" >"$CSV"
echo "== server view cost, fairbench $(git rev-parse --short HEAD), tpcb select-only -c $CLIENTS, server_view $INTERVAL vs off ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
for rep in $(seq 1 "$REPS"); do
    order="off on"
    [ $((rep % 2)) -eq 0 ] && order="on off"
    for v in $order; do
        db=$RUN_DIR/$v-$rep.db
        "$FB" run --results "$db" "$RUN_DIR/$v.toml" >"$RUN_DIR/$v-$rep.log" 2>&1 || die "run $v $rep failed: see $RUN_DIR/$v-$rep.log"
        t=$(tps "$db")
        echo "select-only,$v,$rep,$t" >>"$CSV"
        printf '  pair %d %-3s %s tps\n' "$rep" "$v" "$t"
    done
done
echo "cell,pairs,ratio on/off,ci95 lo,ci95 hi"
awk -F, -v ref=off -v new=on -f bench/ratio.awk <(tail -n +2 "$CSV")
echo "rows: $CSV"
