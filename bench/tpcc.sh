#!/usr/bin/env bash
# bench/tpcc.sh — fairbench's tpcc workload against go-tpc v1.0.12 on the same
# PostgreSQL and the same MariaDB, in one run.
#
#   bench/tpcc.sh                              # local test servers (scripts/test-servers.sh)
#   DURATION=30 REPS=3 LOAD_WAREHOUSES=1 bench/tpcc.sh
#
# Two measurements per engine, each tool on a database of its own (the tables
# have the same names):
#   load: `fairbench load --workload tpcc --warehouses W --load-workers T` against
#         `go-tpc tpcc prepare --no-check --warehouses W -T T` (its load; its
#         check of the data, which fairbench makes optional, is far slower), each on a freshly created
#         database, for W in LOAD_WAREHOUSES; wall-clock seconds (target:
#         fairbench ≤ 0.5 × go-tpc).
#   run:  tpmC at 1 warehouse, THREADS users, no think time: `fairbench run
#         --workload tpcc --vus THREADS --duration D` (its tpmC line: committed
#         New-Orders per minute, which agrees with NOPM) against `go-tpc tpcc
#         run -T THREADS --time D` (its tpmC), REPS pairs, the tools' order
#         alternating; client CPU seconds (user + sys) of each.
# Printed: per engine the load times and their ratio, the median tpmC per tool,
# the paired ratio fairbench/go-tpc of tpmC with its 95 % interval
# (bench/ratio.awk), and of client CPU per transaction. Rows in bench/out/tpcc-<stamp>.csv.
#
# Environment (defaults in brackets): DURATION [30] s, REPS [3], THREADS [4],
# LOAD_WAREHOUSES ["1 4"] ("" skips the load comparison), LOAD_THREADS [2],
# ENGINES ["postgres mariadb"], IMPL [client] (fairbench's --implementation).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-30}; REPS=${REPS:-3}; THREADS=${THREADS:-4}; LOAD_THREADS=${LOAD_THREADS:-2}
LOAD_WAREHOUSES=${LOAD_WAREHOUSES-1 4}; ENGINES=${ENGINES:-postgres mariadb}; IMPL=${IMPL:-client}
require_positive DURATION REPS THREADS LOAD_THREADS
start_test_servers
GOTPC=${GOTPC:-$(bash scripts/install-go-tpc.sh "$ROOT/.bin")} || die "go-tpc could not be built"
bash scripts/build.sh >/dev/null || die "scripts/build.sh failed"
mkdir -p bench/out
STAMP=$(date -u +%Y%m%d-%H%M%S)
CSV=$ROOT/bench/out/tpcc-$STAMP.csv
DB=$ROOT/bench/out/tpcc-$STAMP.db

# url_parts URL → "user password host port" (the test servers' URLs have all four)
url_parts() {
    local rest=${1#*://} cred hostport
    cred=${rest%%@*}; rest=${rest#*@}; hostport=${rest%%/*}
    printf '%s %s %s %s\n' "${cred%%:*}" "${cred#*:}" "${hostport%:*}" "${hostport##*:}"
}
base_url() { case $1 in postgres) test_env FAIRBENCH_TEST_PG ;; mariadb) test_env FAIRBENCH_TEST_MYSQL ;; esac; }
# db_url ENGINE NAME — the engine's URL pointing at database NAME
db_url() { base_url "$1" | sed -E "s#/[^/?]*(\?|\$)#/$2\1#"; }

# fresh_db ENGINE NAME — drops and creates database NAME (fbtest_ names: the
# test user may create them on both servers).
fresh_db() {
    local u p h port
    read -r u p h port < <(url_parts "$(base_url "$1")")
    case $1 in
    postgres)
        PGOPTIONS="-c client_min_messages=warning" psql -q "$(base_url postgres)" -c "DROP DATABASE IF EXISTS $2 WITH (FORCE)" -c "CREATE DATABASE $2" >/dev/null ;;
    mariadb)
        MYSQL_PWD=$p mariadb -h "$h" -P "$port" -u "$u" -e "DROP DATABASE IF EXISTS $2; CREATE DATABASE $2" ;;
    esac || die "could not create database $2 on $1"
}

# gotpc ENGINE NAME ARGS... — go-tpc against database NAME
gotpc() {
    local engine=$1 name=$2 u p h port
    shift 2
    read -r u p h port < <(url_parts "$(base_url "$engine")")
    case $engine in
    postgres) "$GOTPC" tpcc "$@" -d postgres -H "$h" -P "$port" -U "$u" -p "$p" -D "$name" --conn-params sslmode=disable ;;
    mariadb) "$GOTPC" tpcc "$@" -d mysql -H "$h" -P "$port" -U "$u" -p "$p" -D "$name" ;;
    esac
}

# timed CMD... → prints "wall user+sys" seconds of CMD (its output discarded)
timed() {
    local t0 t1 cpu
    t0=$(date +%s.%N)
    cpu=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}') || true
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN {printf "%.2f %s\n", b - a, c}'
}

printf 'tpcc.sh: %s; load %s warehouse(s) on %d connections; run 1 warehouse, %d users, %d s × %d reps\n' \
    "$ENGINES" "${LOAD_WAREHOUSES:-no}" "$LOAD_THREADS" "$THREADS" "$DURATION" "$REPS"
for e in $ENGINES; do
    for w in $LOAD_WAREHOUSES; do
        fresh_db "$e" "fbtest_tpcc_fb_$w"
        read -r secs _ < <(timed "$ROOT/fairbench" load --target "$(db_url "$e" "fbtest_tpcc_fb_$w")" --workload tpcc \
            --warehouses "$w" --load-workers "$LOAD_THREADS")
        echo "$e load W$w,fairbench,1,$secs," >>"$CSV"
        fresh_db "$e" "fbtest_tpcc_gotpc_$w"
        read -r secs _ < <(timed gotpc "$e" "fbtest_tpcc_gotpc_$w" prepare --no-check --warehouses "$w" -T "$LOAD_THREADS")
        echo "$e load W$w,go-tpc,1,$secs," >>"$CSV"
        printf '%s: %d warehouse(s) loaded by both\n' "$e" "$w"
    done
    # The run databases: 1 warehouse each, loaded once.
    fresh_db "$e" fbtest_tpcc_fb_run
    "$ROOT/fairbench" load --target "$(db_url "$e" fbtest_tpcc_fb_run)" --workload tpcc --warehouses 1 \
        --load-workers "$LOAD_THREADS" >/dev/null 2>&1 || die "fairbench load failed on $e"
    fresh_db "$e" fbtest_tpcc_gotpc_run
    gotpc "$e" fbtest_tpcc_gotpc_run prepare --no-check --warehouses 1 -T "$LOAD_THREADS" >/dev/null 2>&1 || die "go-tpc prepare failed on $e"
    for r in $(seq 1 "$REPS"); do
        for j in 0 1; do
            if [ $(((r + j) % 2)) -eq 0 ]; then
                out=$( { TIMEFORMAT='CPU %U %S'; time "$ROOT/fairbench" run --results "$DB" --target "$(db_url "$e" fbtest_tpcc_fb_run)" \
                    --workload tpcc --implementation "$IMPL" --warehouses 1 --vus "$THREADS" --duration "${DURATION}s" 2>/dev/null; } 2>&1)
                tpmc=$(sed -n 's/^tpmC ([^)]*): \([0-9.]*\).*/\1/p' <<<"$out")
                tool=fairbench
            else
                out=$( { TIMEFORMAT='CPU %U %S'; time gotpc "$e" fbtest_tpcc_gotpc_run run --warehouses 1 -T "$THREADS" --time "${DURATION}s" 2>/dev/null; } 2>&1)
                tpmc=$(sed -n 's/^tpmC: \([0-9.]*\),.*/\1/p' <<<"$out" | tail -1)
                tool=go-tpc
            fi
            cpu=$(awk '/^CPU / {print $2 + $3}' <<<"$out")
            [ -n "$tpmc" ] || die "$tool printed no tpmC on $e (rep $r)"
            echo "$e run,$tool,$r,$tpmc,$cpu" >>"$CSV"
            printf '.'
        done
    done
    echo
done
# CPU per transaction: cpu / (tpmC / 60 × duration) — New-Orders are 45 % of the mix
awk -F, -v d="$DURATION" '$1 ~ / run$/ {print $1 "," $2 "," $3 "," ($4 > 0 ? $5 / ($4 / 0.45 / 60 * d) * 1e6 : "")}' "$CSV" >"$CSV.cpu"
printf '%-22s %12s %12s   %-28s %-28s\n' cell go-tpc fairbench "fairbench/go-tpc [95% CI]" "CPU µs/txn fb/go-tpc"
while IFS= read -r k; do
    med() { grep "^$k,$1," "$CSV" | cut -d, -f4 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    r1=$(grep "^$k," "$CSV" | awk -F, -v ref=go-tpc -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    r2=""
    if [[ $k == *" run" ]]; then r2=$(grep "^$k," "$CSV.cpu" | awk -F, -v ref=go-tpc -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5); fi
    printf '%-22s %12s %12s   %-28s %-28s\n' "$k" "$(med go-tpc)" "$(med fairbench)" "$r1" "$r2"
done < <(cut -d, -f1 "$CSV" | awk '!seen[$0]++')
echo "load rows are seconds (lower is better), run rows tpmC (higher is better); rows: $CSV"
