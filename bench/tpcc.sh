#!/usr/bin/env bash
# bench/tpcc.sh — fairbench's tpcc workload against go-tpc v1.0.12 on the same
# PostgreSQL and the same MariaDB, in one run.
#
#   bench/tpcc.sh                              # local test servers (scripts/test-servers.sh)
#   DURATION=30 REPS=3 LOAD_WAREHOUSES=1 bench/tpcc.sh
#   HAMMERDB_DIR=$(bash scripts/install-hammerdb.sh .bin) ENGINES=postgres \
#       BUILD_WAREHOUSES="10 25" BUILD_ONLY=1 bench/tpcc.sh   # the build comparison only
#
# Two measurements per engine, each tool on a database of its own (the tables
# have the same names):
#   load: `fairbench load --workload tpcc --warehouses W --load-workers T` against
#         `go-tpc tpcc prepare --no-check --warehouses W -T T` (its load; its
#         check of the data, which fairbench makes optional, is far slower), each on a freshly created
#         database, for W in LOAD_WAREHOUSES; wall-clock seconds (target:
#         fairbench ≤ 0.5 × go-tpc).
#   run:  tpmC at 1 warehouse, THREADS users, no think time: `fairbench run
#         --workload tpcc --vus THREADS --rampup 0s --duration D` (its tpmC line: committed
#         New-Orders per minute, which agrees with NOPM) against `go-tpc tpcc
#         run -T THREADS --time D` (its tpmC), REPS pairs, the tools' order
#         alternating; client CPU seconds (user + sys) of each.
# Printed: per engine the load times and their ratio, the median tpmC per tool,
# the paired ratio fairbench/go-tpc of tpmC with its 95 % interval
# (bench/ratio.awk), and of client CPU per transaction. Rows in bench/out/tpcc-<stamp>.csv.
#
# Environment (defaults in brackets): DURATION [30] s, REPS [3], THREADS [4],
# LOAD_WAREHOUSES ["1 4"] ("" skips the load comparison), LOAD_THREADS [2],
# ENGINES ["postgres mariadb"], IMPL [client] (fairbench's --implementation);
# HAMMERDB_DIR adds the HammerDB sections below: the TPROC-C run (HDB_VUS,
# HDB_REPS, HAMMERDB_ONLY) and, with BUILD_WAREHOUSES, the build comparison
# (BUILD_PAIRS, BUILD_ONLY).
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

# drop_db ENGINE NAME — drops database NAME
drop_db() {
    local u p h port
    read -r u p h port < <(url_parts "$(base_url "$1")")
    case $1 in
    postgres) PGOPTIONS="-c client_min_messages=warning" psql -q "$(base_url postgres)" -c "DROP DATABASE IF EXISTS $2 WITH (FORCE)" >/dev/null ;;
    mariadb) MYSQL_PWD=$p mariadb -h "$h" -P "$port" -u "$u" -e "DROP DATABASE IF EXISTS $2" ;;
    esac || die "could not drop database $2 on $1"
}

# gotpc_cmd ENGINE NAME ARGS... — sets GOTPC_CMD to go-tpc's command line against database NAME
gotpc_cmd() {
    local engine=$1 name=$2 u p h port
    shift 2
    read -r u p h port < <(url_parts "$(base_url "$engine")")
    case $engine in
    postgres) GOTPC_CMD=("$GOTPC" tpcc "$@" -d postgres -H "$h" -P "$port" -U "$u" -p "$p" -D "$name" --conn-params sslmode=disable) ;;
    mariadb) GOTPC_CMD=("$GOTPC" tpcc "$@" -d mysql -H "$h" -P "$port" -U "$u" -p "$p" -D "$name") ;;
    esac
}
# gotpc ENGINE NAME ARGS... — go-tpc against database NAME
gotpc() { gotpc_cmd "$@" && "${GOTPC_CMD[@]}"; }

# timed CMD... → prints "wall user+sys" seconds of CMD (its output discarded)
timed() {
    local t0 t1 cpu
    t0=$(date +%s.%N)
    cpu=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}') || true
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN {printf "%.2f %s\n", b - a, c}'
}

# --- Build comparison (HAMMERDB_DIR and BUILD_WAREHOUSES) -------------------
# The whole build of W warehouses (tables, rows, keys and indexes, statistics),
# for W in BUILD_WAREHOUSES, by the three tools with the same number of load
# workers, LOAD_THREADS: `fairbench load --workload tpcc --warehouses W
# --load-workers T`, HammerDB's buildschema with T virtual users (it adds a
# monitor thread that loads the items and waits for the workers, polling every
# 10 s), `go-tpc tpcc prepare --no-check -T T`. Each tool builds into a
# database of its own created just before (fbtest_tpcc_build_{fb,hdb,gotpc},
# dropped at the end); BUILD_PAIRS [1] rounds, the tools' order rotating per
# round. Kept per build (GNU time): wall-clock seconds, client CPU seconds
# (user + sys) and the client's peak RSS. Printed per engine and W: the median
# of each, and fairbench/HammerDB and fairbench/go-tpc of the wall-clock time
# paired by round (bench/ratio.awk: geometric mean, 95 % interval from 2
# rounds; target: fairbench ≤ 0.5 × HammerDB). BUILD_ONLY=1 stops the script after
# this section. Rows in bench/out/tpcc-build-<stamp>.csv, each build's output
# beside it (tpcc-build-<stamp>-<engine>-W<w>-<round>-<tool>.log).
build_comparison() {
    [ -n "${BUILD_WAREHOUSES:-}" ] || return 0
    BUILD_PAIRS=${BUILD_PAIRS:-1}
    require_positive BUILD_PAIRS
    local BCSV=$ROOT/bench/out/tpcc-build-$STAMP.csv e w r k tool out t0 tools=(fairbench hammerdb go-tpc)
    local stats=$hdb_tmp/time
    printf 'tpcc.sh build: %s; %s warehouse(s), %d load workers, %d round(s)\n' "$ENGINES" "$BUILD_WAREHOUSES" "$LOAD_THREADS" "$BUILD_PAIRS"
    for e in $ENGINES; do
        for w in $BUILD_WAREHOUSES; do
            for r in $(seq 1 "$BUILD_PAIRS"); do
                for k in 0 1 2; do
                    tool=${tools[$(((r + k) % 3))]}
                    case $tool in
                    fairbench)
                        fresh_db "$e" fbtest_tpcc_build_fb
                        out=$(/usr/bin/time -f '%e %U %S %M' -o "$stats" "$ROOT/fairbench" load --target "$(db_url "$e" fbtest_tpcc_build_fb)" \
                            --workload tpcc --warehouses "$w" --load-workers "$LOAD_THREADS" 2>&1) || die "fairbench load failed on $e: $(tail -3 <<<"$out")" ;;
                    hammerdb)
                        fresh_db "$e" fbtest_tpcc_build_hdb
                        out=$(hdb_timed "$stats" "$e" fbtest_tpcc_build_hdb "diset tpcc @count_ware $w" "diset tpcc @num_vu $LOAD_THREADS" buildschema)
                        grep -q ' SCHEMA COMPLETE' <<<"$out" || die "HammerDB's buildschema failed on $e: $(tail -5 <<<"$out")" ;;
                    go-tpc)
                        fresh_db "$e" fbtest_tpcc_build_gotpc
                        gotpc_cmd "$e" fbtest_tpcc_build_gotpc prepare --no-check --warehouses "$w" -T "$LOAD_THREADS"
                        out=$(/usr/bin/time -f '%e %U %S %M' -o "$stats" "${GOTPC_CMD[@]}" 2>&1) || die "go-tpc prepare failed on $e: $(tail -3 <<<"$out")" ;;
                    esac
                    printf '%s\n' "$out" >"${BCSV%.csv}-$e-W$w-$r-$tool.log"
                    # wall, CPU = user + sys, peak RSS in MiB
                    echo "$e build W$w,$tool,$r,$(awk 'END {printf "%.1f,%.1f,%.0f", $1, $2 + $3, $4 / 1024}' "$stats")" >>"$BCSV"
                    printf '%s W%d round %d: %s %s s\n' "$e" "$w" "$r" "$tool" "$(tail -1 "$BCSV" | cut -d, -f4)"
                done
            done
        done
        drop_db "$e" fbtest_tpcc_build_fb; drop_db "$e" fbtest_tpcc_build_hdb; drop_db "$e" fbtest_tpcc_build_gotpc
    done
    printf '%-20s %9s %9s %9s   %-24s %-24s %s\n' cell hammerdb go-tpc fairbench "fb/hammerdb [95% CI]" "fb/go-tpc [95% CI]" \
        "CPU s, peak RSS MiB (hdb / go-tpc / fb)"
    while IFS= read -r k; do
        # the median of column $2 of tool $1's rows (of an even count, the mean of the middle two)
        med() { grep "^$k,$1," "$BCSV" | cut -d, -f"$2" | sort -g | awk '{a[NR]=$1} END {print (a[int((NR+1)/2)] + a[int(NR/2)+1]) / 2}'; }
        # the paired ratio fairbench/$1 of the wall-clock time (bench/ratio.awk)
        ratio() { grep "^$k," "$BCSV" | awk -F, -v ref="$1" -v new=fairbench -f bench/ratio.awk | awk -F, '{printf "%s [%s, %s]", $3, $4, $5}'; }
        printf '%-20s %9s %9s %9s   %-24s %-24s %s / %s / %s, %s / %s / %s\n' "$k" "$(med hammerdb 4)" "$(med go-tpc 4)" "$(med fairbench 4)" \
            "$(ratio hammerdb)" "$(ratio go-tpc)" \
            "$(med hammerdb 5)" "$(med go-tpc 5)" "$(med fairbench 5)" "$(med hammerdb 6)" "$(med go-tpc 6)" "$(med fairbench 6)"
    done < <(cut -d, -f1 "$BCSV" | awk '!seen[$0]++')
    echo "seconds, median of the rounds (lower is better); rows: $BCSV"
    if [ "${BUILD_ONLY:-0}" = 1 ]; then exit 0; fi
}

# --- HammerDB (only with HAMMERDB_DIR) ---------------------------------------
# NOPM of fairbench's tpcc with --stored-procedures against HammerDB 4.12's
# TPROC-C (its timed driver through hammerdbcli; HAMMERDB_DIR = the directory
# scripts/install-hammerdb.sh prints) on the same server: 1 warehouse,
# HDB_VUS [3] virtual users, no ramp-up, 1 minute measured (HammerDB's whole
# minutes), no keying/think time, HDB_REPS [3] pairs, the tools' order
# alternating, each tool on a database of its own loaded once (HammerDB's
# buildschema, pg_storedprocs false = its functions, as fairbench's procedures
# on PostgreSQL; time profile off, HammerDB's default). HAMMERDB_ONLY=1 stops
# the script after this section. Rows in bench/out/tpcc-hammerdb-<stamp>.csv.
if [ -n "${HAMMERDB_DIR:-}" ]; then
    HDB_VUS=${HDB_VUS:-3}; HDB_REPS=${HDB_REPS:-3}
    require_positive HDB_VUS HDB_REPS
    [ -x "$HAMMERDB_DIR/hammerdbcli" ] || die "HAMMERDB_DIR=$HAMMERDB_DIR holds no hammerdbcli (scripts/install-hammerdb.sh DIR prints the directory)"
    HCSV=$ROOT/bench/out/tpcc-hammerdb-$STAMP.csv
    # HammerDB's TMP (its configuration and job databases) and its scripts,
    # which hold the test servers' passwords: private, removed at the end.
    hdb_tmp=$(mktemp -d)
    trap 'rm -rf "$hdb_tmp"' EXIT
    # hdb ENGINE NAME LINES... — hammerdbcli with a script: the connection to
    # database NAME, then LINES, where @ stands for the engine's prefix (pg_, mysql_)
    hdb() {
        local engine=$1 name=$2 u p h port pre s=$hdb_tmp/script.tcl
        shift 2
        read -r u p h port < <(url_parts "$(base_url "$engine")")
        case $engine in
        postgres) pre=pg_; printf '%s\n' "dbset db pg" "dbset bm TPC-C" "diset connection pg_host $h" "diset connection pg_port $port" \
            "diset connection pg_sslmode disable" "diset tpcc pg_superuser $u" "diset tpcc pg_superuserpass {$p}" \
            "diset tpcc pg_defaultdbase $name" "diset tpcc pg_user $u" "diset tpcc pg_pass {$p}" "diset tpcc pg_dbase $name" \
            "diset tpcc pg_storedprocs false" "diset tpcc pg_vacuum false" >"$s" ;;
        mariadb) pre=mysql_; printf '%s\n' "dbset db mysql" "dbset bm TPC-C" "diset connection mysql_host $h" \
            "diset connection mysql_port $port" "diset connection mysql_socket null" "diset tpcc mysql_user $u" \
            "diset tpcc mysql_pass {$p}" "diset tpcc mysql_dbase $name" >"$s" ;;
        esac
        printf '%s\n' "diset tpcc @count_ware 1" "$@" | sed "s/@/$pre/g" >>"$s"
        (cd "$HAMMERDB_DIR" && TMP=$hdb_tmp TCLLIBPATH=$HAMMERDB_DIR/lib "${HDB_TIME[@]}" ./hammerdbcli auto "$s" 2>&1)
    }
    HDB_TIME=()
    # hdb_timed STATS ENGINE NAME LINES... — hdb under GNU time, its figures in STATS
    hdb_timed() {
        local stats=$1 out
        shift
        HDB_TIME=(/usr/bin/time -f '%e %U %S %M' -o "$stats")
        out=$(hdb "$@") || true
        HDB_TIME=()
        printf '%s\n' "$out"
    }
    build_comparison
    printf 'tpcc.sh HammerDB: %s; 1 warehouse, %d VUs, 60 s measured × %d pairs\n' "$ENGINES" "$HDB_VUS" "$HDB_REPS"
    for e in $ENGINES; do
        fresh_db "$e" fbtest_tpcc_fb_hdb
        "$ROOT/fairbench" load --target "$(db_url "$e" fbtest_tpcc_fb_hdb)" --workload tpcc --warehouses 1 \
            --load-workers "$LOAD_THREADS" >/dev/null 2>&1 || die "fairbench load failed on $e"
        fresh_db "$e" fbtest_tpcc_hdb
        out=$(hdb "$e" fbtest_tpcc_hdb "diset tpcc @num_vu 1" buildschema)
        grep -q ' SCHEMA COMPLETE' <<<"$out" || die "HammerDB's buildschema failed on $e: $(tail -5 <<<"$out")"
        for r in $(seq 1 "$HDB_REPS"); do
            for j in 0 1; do
                if [ $(((r + j) % 2)) -eq 0 ]; then
                    out=$("$ROOT/fairbench" run --results "$DB" --target "$(db_url "$e" fbtest_tpcc_fb_hdb)" --workload tpcc \
                        --stored-procedures --warehouses 1 --vus "$HDB_VUS" --rampup 0s --duration 60s 2>/dev/null)
                    nopm=$(sed -n 's/^TEST RESULT : System achieved \([0-9]*\) NOPM.*/\1/p' <<<"$out")
                    tool=fairbench
                else
                    out=$(hdb "$e" fbtest_tpcc_hdb "diset tpcc @driver timed" "diset tpcc @total_iterations 10000000" \
                        "diset tpcc @rampup 0" "diset tpcc @duration 1" "diset tpcc @timeprofile false" \
                        "diset tpcc @allwarehouse false" "diset tpcc @raiseerror false" "diset tpcc @keyandthink false" \
                        loadscript "vuset vu $HDB_VUS" vucreate "vurun" "if {![vucomplete]} { _runtimer 120 }" vudestroy)
                    nopm=$(sed -n 's/.*TEST RESULT : System achieved \([0-9]*\) NOPM.*/\1/p' <<<"$out" | tail -1)
                    tool=hammerdb
                fi
                [ -n "$nopm" ] || die "$tool printed no NOPM on $e (rep $r): $(tail -5 <<<"$out")"
                echo "$e NOPM,$tool,$r,$nopm" >>"$HCSV"
                printf '.'
            done
        done
        echo
    done
    printf '%-22s %12s %12s   %-28s\n' cell hammerdb fairbench "fairbench/hammerdb [95% CI]"
    while IFS= read -r k; do
        med() { grep "^$k,$1," "$HCSV" | cut -d, -f4 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
        r1=$(grep "^$k," "$HCSV" | awk -F, -v ref=hammerdb -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
        printf '%-22s %12s %12s   %-28s\n' "$k" "$(med hammerdb)" "$(med fairbench)" "$r1"
    done < <(cut -d, -f1 "$HCSV" | awk '!seen[$0]++')
    echo "NOPM, median of the pairs (higher is better); rows: $HCSV"
    if [ "${HAMMERDB_ONLY:-0}" = 1 ]; then exit 0; fi
fi

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
                    --workload tpcc --implementation "$IMPL" --warehouses 1 --vus "$THREADS" --rampup 0s --duration "${DURATION}s" 2>/dev/null; } 2>&1)
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
