#!/usr/bin/env bash
# bench/cpu.sh — fairbench's client CPU per operation beside the C peers
# (issue 50 item 3): pgbench select-only, sysbench oltp_read_only on MariaDB,
# memtier_benchmark 1:10 at pipeline 1 on Valkey.
#
#   bash bench/cpu.sh                              # every cell, 5 pairs of 8 s
#   CELLS=pg REPS=8 DURATION=6 bash bench/cpu.sh
#   CELLS=pg FLOORS=1 REPS=6 bash bench/cpu.sh     # and the floor clients beside them
#
# Throughput on a shared host is noise; CPU seconds per operation are far less
# so. Each pair runs the peer and fairbench back to back (the order alternating)
# against the same server, each under /usr/bin/time (user + sys of the process,
# start-up included) and, if perf is there, `perf stat` (context switches per
# operation). Printed per cell: each tool's median µs of CPU per operation with
# its range, the paired ratio fairbench/peer (bench/ratio.awk) and the context
# switches per operation. Rows in bench/out/cpu-<stamp>.csv.
#
# Cells (CELLS [pg sb kv]):
#   pg  pgbench -n -b select-only -M prepared -c 8 -j 2 against fairbench's tpcb
#       --mode select-only -c 8 -j 2 -M prepared --no-vacuum, on PG_URL (its
#       pgbench tables at scale 10; `pgbench -i -s 10` first when they are missing)
#   sb  sysbench oltp_read_only --threads=2 against fairbench's oltp --mode
#       read_only --threads 2 --client-threads 2, 4 × 50 000 rows, on MY_URL
#       (sysbench's prepare first when sbtest1 is missing; password in MYSQL_PWD)
#   kv  memtier_benchmark -t 2 -c 25 --ratio=1:10 --pipeline=1 over 100 000 keys
#       against fairbench's kv with the same flags, on KV_URL's database
# With FLOORS=1 the pg cell also runs bench/floor's two clients, which do
# nothing but pgbench's messages on fairbench's event loop (cfloor in C, gofloor
# in Go; no timing, no histogram, no driver): the least CPU per transaction a
# client of that loop can cost on this machine. They need gcc and libpq's headers.
# Defaults: the test servers' PostgreSQL and MariaDB, the test Valkey's database 5
# (KV_URL redis://HOST:PORT/DB); MEMTIER a memtier_benchmark 2.3.0 already built.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${DURATION:-8}; DURATION=${DURATION%s}
REPS=${REPS:-5}
CELLS=${CELLS:-pg sb kv}
FLOORS=${FLOORS:-0}
OUT_DIR=${OUT_DIR:-bench/out}
require_positive DURATION REPS

# The test servers are started (scripts/test-servers.sh) only when a URL is not given.
[ -n "${PG_URL:-}" ] && [ -n "${MY_URL:-}" ] && [ -n "${KV_URL:-}" ] || start_test_servers
PG_URL=${PG_URL:-$(test_env FAIRBENCH_TEST_PG)}
MY_URL=${MY_URL:-$(test_env FAIRBENCH_TEST_MYSQL)}
KV_URL=${KV_URL:-$(test_env FAIRBENCH_TEST_VALKEY | sed -E 's#/[0-9]*$#/5#')}
MEMTIER=${MEMTIER:-$(bash scripts/install-memtier.sh "$ROOT/.bin")} || die "memtier_benchmark could not be built"
command -v pgbench >/dev/null || die "pgbench is not installed"
command -v sysbench >/dev/null || die "sysbench is not installed"

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT_DIR"
CSV=$OUT_DIR/cpu-$STAMP.csv
RUN_DIR=$OUT_DIR/cpu-$STAMP
mkdir -p "$RUN_DIR"
FB=$RUN_DIR/fairbench
go build -o "$FB" ./cmd/fairbench
if [ "$FLOORS" = 1 ]; then
    [ -f /usr/include/postgresql/libpq-fe.h ] || die "FLOORS=1: libpq's headers missing (Debian: apt-get install libpq-dev)"
    gcc -O2 -pthread -I/usr/include/postgresql -o "$RUN_DIR/cfloor" bench/floor/cfloor.c -lpq || die "building cfloor failed"
    CGO_ENABLED=0 go build -o "$RUN_DIR/gofloor" ./bench/floor/gofloor || die "building gofloor failed"
fi

my_part() { # FIELD(user|pass|host|port|db) of MY_URL
    sed -E 's#^mysql://([^:@]*):?([^@]*)@([^:/]*):?([0-9]*)/([^?]*).*#\1 \2 \3 \4 \5#' <<<"$MY_URL" |
        awk -v f="$1" '{i = (f == "user") ? 1 : (f == "pass") ? 2 : (f == "host") ? 3 : (f == "port") ? 4 : 5; print $i}'
}
export MYSQL_PWD
MYSQL_PWD=$(my_part pass)
SB_ARGS="--db-driver=mysql --mysql-host=$(my_part host) --mysql-port=$(my_part port) --mysql-user=$(my_part user) --mysql-db=$(my_part db)"
KV_HOST=$(sed -E 's#^redis://([^:/]*):([0-9]+).*#\1#' <<<"$KV_URL")
KV_PORT=$(sed -E 's#^redis://([^:/]*):([0-9]+).*#\2#' <<<"$KV_URL")
KV_DB=${KV_URL##*/}

prepare() {
    case $1 in
    pg) psql "$PG_URL" -Atc "SELECT 1 FROM pgbench_accounts LIMIT 1" >/dev/null 2>&1 ||
            pgbench -i -s 10 -q "$PG_URL" >"$RUN_DIR/pgbench-init.log" 2>&1 || die "pgbench -i failed" ;;
    sb) mysql -h "$(my_part host)" -P "$(my_part port)" -u "$(my_part user)" -N -B -e "SELECT 1 FROM sbtest4 LIMIT 1" "$(my_part db)" \
            >/dev/null 2>&1 ||
            # shellcheck disable=SC2086
            sysbench $SB_ARGS oltp_read_only --tables=4 --table-size=50000 prepare >"$RUN_DIR/sysbench-prepare.log" 2>&1 ||
            die "sysbench prepare failed" ;;
    kv) # fairbench writes the keys (and its marker) once, so that the runs reuse them
        "$FB" run --results "$RUN_DIR/fairbench.db" --target "$KV_URL" --workload kv --ratio 1:10 -t 1 -c 1 \
            --key-maximum 99999 --test-time 1s --warmup 0s --replace >"$RUN_DIR/kv-prepare.log" 2>&1 || die "kv prepare failed" ;;
    esac
}

# run CELL TOOL — one run; prints the operations it did (the tool's own count)
run() {
    case $1-$2 in
    pg-peer) pgbench -n -b select-only -M prepared -c 8 -j 2 -T "$DURATION" "$PG_URL" ;;
    pg-fairbench) "$FB" run --results "$RUN_DIR/fairbench.db" --target "$PG_URL" --workload tpcb --mode select-only --scale 10 \
        -c 8 -j 2 -T "${DURATION}s" -M prepared --no-vacuum ;;
    pg-cfloor | pg-gofloor) "$RUN_DIR/$2" "$PG_URL" 8 2 "$DURATION" ;;
    sb-peer) # shellcheck disable=SC2086
        sysbench $SB_ARGS oltp_read_only --tables=4 --table-size=50000 --threads=2 --time="$DURATION" --report-interval=0 run ;;
    sb-fairbench) "$FB" run --results "$RUN_DIR/fairbench.db" --target "$MY_URL" --workload oltp --mode read_only --tables 4 \
        --table-size 50000 --threads 2 --client-threads 2 --time "$DURATION" --max-tries 100 ;;
    kv-peer) "$MEMTIER" -s "$KV_HOST" -p "$KV_PORT" --select-db="$KV_DB" --protocol=redis -t 2 -c 25 --ratio=1:10 --pipeline=1 \
        --key-maximum=99999 --key-pattern=R:R --distinct-client-seed --test-time="$DURATION" --hide-histogram ;;
    kv-fairbench) "$FB" run --results "$RUN_DIR/fairbench.db" --target "$KV_URL" --workload kv --ratio 1:10 -t 2 -c 25 --pipeline 1 \
        --key-maximum 99999 --test-time "${DURATION}s" --warmup 0s ;;
    esac
}
# ops CELL LOG — the operations a run's output counts (memtier's and kv's Totals ops/s × DURATION)
ops() {
    case $1 in
    pg) awk '/actually processed/ || /^transactions / {print $NF}' "$2" ;;
    sb) awk '/transactions:/ {print $2}' "$2" ;;
    kv) awk -v d="$DURATION" '/^Totals/ {printf "%d\n", $2 * d}' "$2" ;;
    esac
}

PERF=$(command -v perf || true)
echo "cell,tool,rep,ops,user_s,sys_s,cpu_us_per_op,switches_per_op,load" >"$CSV"
echo "== client CPU per operation, fairbench $(git rev-parse --short HEAD) against the C peers ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
for cell in $CELLS; do
    prepare "$cell"
    for rep in $(seq 1 "$REPS"); do
        order="peer fairbench"
        [ $((rep % 2)) -eq 0 ] && order="fairbench peer"
        if [ "$cell" = pg ] && [ "$FLOORS" = 1 ]; then # four tools: the order rotates
            tools=(peer fairbench cfloor gofloor)
            order=$(for j in 0 1 2 3; do printf '%s ' "${tools[$(((rep + j) % 4))]}"; done)
        fi
        for tool in $order; do
            log=$RUN_DIR/$cell-$tool-$rep.log
            if [ -n "$PERF" ]; then
                "$PERF" stat -x, -e context-switches -o "$log.perf" -- /usr/bin/time -o "$log.time" -f "%U %S" \
                    bash -c "$(declare -f run); $(declare -p DURATION FB RUN_DIR PG_URL MY_URL KV_URL SB_ARGS MEMTIER KV_HOST KV_PORT KV_DB); run $cell $tool" \
                    >"$log" 2>&1 || true
            else
                /usr/bin/time -o "$log.time" -f "%U %S" bash -c "$(declare -f run); $(declare -p DURATION FB RUN_DIR PG_URL MY_URL KV_URL SB_ARGS MEMTIER KV_HOST KV_PORT KV_DB); run $cell $tool" \
                    >"$log" 2>&1 || true
            fi
            n=$(ops "$cell" "$log")
            [ -n "$n" ] && [ "$n" -gt 0 ] || die "$cell $tool rep $rep did no operations (see $log)"
            read -r us ss <"$log.time"
            sw=$( [ -f "$log.perf" ] && awk -F, '/context-switches/ {print $1}' "$log.perf" || echo 0)
            awk -v c="$cell" -v t="$tool" -v r="$rep" -v n="$n" -v u="$us" -v s="$ss" -v w="$sw" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
                'BEGIN {printf "%s,%s,%s,%d,%s,%s,%.3f,%.3f,%s\n", c, t, r, n, u, s, (u + s) * 1e6 / n, w / n, l}' >>"$CSV"
            printf '.'
        done
    done
    printf ' %s\n' "$cell"
done

printf '%-4s %-28s %-28s %-26s %s\n' cell "peer µs/op median [range]" "fairbench µs/op median [range]" "fb/peer paired [95 %]" "switches/op peer / fb"
for cell in $CELLS; do
    med() { grep "^$cell,$1," "$CSV" | cut -d, -f"$2" | sort -g | awk '{a[NR] = $1} END {printf "%s [%s–%s]", a[int((NR + 1) / 2)], a[1], a[NR]}'; }
    mid() { grep "^$cell,$1," "$CSV" | cut -d, -f"$2" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
    # paired REF NEW — NEW's CPU per operation over REF's, paired by repetition: "ratio [low, high]"
    paired() { grep "^$cell," "$CSV" | cut -d, -f1-3,7 | awk -F, -v ref="$1" -v new="$2" -f bench/ratio.awk | cut -d, -f3-5 |
        sed -E 's/,/ [/; s/,/, /; s/$/]/'; }
    printf '%-4s %-28s %-28s %-26s %s / %s\n' "$cell" "$(med peer 7)" "$(med fairbench 7)" "$(paired peer fairbench)" "$(mid peer 8)" "$(mid fairbench 8)"
    if [ "$cell" = pg ] && [ "$FLOORS" = 1 ]; then
        for floor in cfloor gofloor; do
            printf '     %-8s µs/op %-20s %s/peer %s\n' "$floor" "$(med "$floor" 7)" "$floor" "$(paired peer "$floor")"
        done
        printf '     fairbench/gofloor %s\n' "$(paired gofloor fairbench)"
    fi
done | tee "$OUT_DIR/cpu-$STAMP-summary.txt"
echo "rows: $CSV"
