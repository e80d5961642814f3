#!/usr/bin/env bash
# bench/sysbench.sh — fairbench's oltp against sysbench 1.0 on the same
# PostgreSQL and the same MariaDB, in one run.
#
#   bench/sysbench.sh                     # local test servers (scripts/test-servers.sh)
#   DURATION=10 bench/sysbench.sh         # short run
#
# For each engine (PostgreSQL, MariaDB): sysbench prepares the tables once
# (sysbench oltp_read_write prepare; fairbench reuses sysbench's tables as they
# are). Then for each mode × threads, REPS repetitions interleaved, the order alternating (sysbench,
# fairbench, sysbench, …), each DURATION seconds, same tables, table size,
# distribution (sysbench 1.0's default, special) and query mode (server-side
# prepared statements: sysbench's --db-ps-mode=auto, fairbench's default).
# Captured per run: transactions per second as each tool reports it, and the
# tool's CPU seconds (user+sys, from bash's `time`). Printed: median TPS per
# tool, the TPS ratio fairbench/sysbench and the ratio of client CPU per
# transaction. Raw rows in bench/out/sysbench-<stamp>.csv, every output in
# bench/out/sysbench-<stamp>/.
#
# Environment knobs (defaults in brackets):
#   DURATION [20] seconds per run     REPS [3]          THREADS ["2 8"]
#   MODES ["point_select read_write"] TABLES [4]        TABLE_SIZE [50000]
#   ENGINES ["postgres mysql"]        OUT_DIR [bench/out]
#   FB_JOBS [same]: fairbench's --client-threads. "same" = the thread count sysbench gets, so
#     each fairbench client has a thread of its own as each sysbench thread has
#     one connection; "auto" = fairbench's default (event loops, one per CPU,
#     when there are more clients than CPUs); or a number.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${DURATION:-20}; DURATION=${DURATION%s}
REPS=${REPS:-3}
THREADS=${THREADS:-2 8}
MODES=${MODES:-point_select read_write}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-50000}
ENGINES=${ENGINES:-postgres mysql}
FB_JOBS=${FB_JOBS:-same}
OUT_DIR=${OUT_DIR:-$ROOT/bench/out}

require_positive DURATION REPS TABLES TABLE_SIZE
for m in $MODES; do
    case $m in point_select | read_only | write_only | read_write | update_index | update_non_index | insert | delete) ;;
    *) die "MODES: unknown mode '$m'" ;; esac
done
for e in $ENGINES; do case $e in postgres | mysql) ;; *) die "ENGINES: unknown engine '$e' (postgres, mysql)" ;; esac; done
[ "$FB_JOBS" = same ] || [ "$FB_JOBS" = auto ] || is_positive "$FB_JOBS" \
    || die "FB_JOBS must be same, auto or a number > 0 (got '$FB_JOBS')"
fb_jobs() { # THREADS → fairbench's --client-threads arguments
    case $FB_JOBS in same) echo "--client-threads $1" ;; auto) ;; *) echo "--client-threads $FB_JOBS" ;; esac
}

# ------------------------------------------------------------------ set-up

start_test_servers
PGURL=$(test_env FAIRBENCH_TEST_PG)
MYURL=$(test_env FAIRBENCH_TEST_MYSQL)
command -v sysbench >/dev/null 2>&1 || apt_install sysbench

STAMP=$(date -u +%Y%m%d-%H%M%S)
RUN_DIR=$OUT_DIR/sysbench-$STAMP
mkdir -p "$RUN_DIR"
CSV=$OUT_DIR/sysbench-$STAMP.csv
SUMMARY=$OUT_DIR/sysbench-$STAMP-summary.txt
FB=$RUN_DIR/fairbench
CGO_ENABLED=0 go build -trimpath -o "$FB" ./cmd/fairbench || die "go build failed"
echo "engine,tool,mode,threads,rep,duration_s,txn,tps,user_s,sys_s,cpu_s,cpu_us_per_txn,log" >"$CSV"

# URL parts for sysbench's own options (the test servers' credentials).
url_part() { # URL FIELD(user|pass|host|port|db)
    python3 - "$1" "$2" <<'PY'
import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print({"user": p.username, "pass": u.unquote(p.password or ""), "host": p.hostname,
       "port": p.port or "", "db": p.path.lstrip("/")}[sys.argv[2]])
PY
}
sb_args() { # ENGINE
    local url
    if [ "$1" = postgres ]; then
        url=$PGURL
        echo "--db-driver=pgsql --pgsql-host=$(url_part "$url" host) --pgsql-port=$(url_part "$url" port)" \
            "--pgsql-user=$(url_part "$url" user) --pgsql-password=$(url_part "$url" pass) --pgsql-db=$(url_part "$url" db)"
    else
        url=$MYURL
        echo "--db-driver=mysql --mysql-host=$(url_part "$url" host) --mysql-port=$(url_part "$url" port)" \
            "--mysql-user=$(url_part "$url" user) --mysql-password=$(url_part "$url" pass) --mysql-db=$(url_part "$url" db)"
    fi
}
fb_url() { if [ "$1" = postgres ]; then echo "$PGURL"; else echo "$MYURL"; fi; }

# sql ENGINE STATEMENT — run one statement with the engine's own client.
sql() {
    if [ "$1" = postgres ]; then
        psql "$PGURL" -XqAt -c "$2"
    else
        MYSQL_PWD=$(url_part "$MYURL" pass) mysql -h "$(url_part "$MYURL" host)" -P "$(url_part "$MYURL" port)" \
            -u "$(url_part "$MYURL" user)" -N -B -e "$2" "$(url_part "$MYURL" db)"
    fi
}

# timed LOG CMD... — run CMD with its output in LOG; sets T_USER T_SYS.
timed() {
    local out=$1; shift
    local tf rc=0 TIMEFORMAT='%3U %3S'
    tf=$(mktemp)
    { time "$@" >"$out" 2>&1; } 2>"$tf" || rc=$?
    read -r T_USER T_SYS <"$tf"
    rm -f "$tf"
    [ "$rc" -eq 0 ] || die "command failed (rc $rc), see $out"
}

# Both tools print sysbench's line "transactions: N (X per sec.)".
parse() { # LOG → sets R_TXN R_TPS
    R_TXN=$(awk '/^ *transactions:/ {print $2; exit}' "$1")
    R_TPS=$(awk '/^ *transactions:/ {gsub(/[(]/, "", $3); print $3; exit}' "$1")
    [[ $R_TPS =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "$1: no 'transactions: N (X per sec.)' line"
}

SBVER=$(sysbench --version)
{
    echo "== fairbench oltp vs $SBVER ($(date -u +%FT%TZ))"
    echo "host:     $(uname -srm), nproc $(nproc), $(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "servers:  $(sql postgres 'select version()' | cut -c1-60); MariaDB $(sql mysql 'select version()')"
    echo "matrix:   engines [$ENGINES] × modes [$MODES] × threads [$THREADS] × $REPS reps × 2 tools, ${DURATION}s each; tables $TABLES × $TABLE_SIZE rows"
    echo "fairbench --client-threads: $FB_JOBS (same = sysbench's thread count: a thread per client)"
} | tee "$SUMMARY"

for engine in $ENGINES; do
    echo "-- $engine: sysbench prepare ($TABLES × $TABLE_SIZE rows)" | tee -a "$SUMMARY"
    # shellcheck disable=SC2046
    sysbench oltp_read_write $(sb_args "$engine") --tables="$TABLES" cleanup >"$RUN_DIR/$engine-cleanup.log" 2>&1 || true
    # shellcheck disable=SC2046
    sysbench oltp_read_write $(sb_args "$engine") --tables="$TABLES" --table-size="$TABLE_SIZE" \
        --threads="$TABLES" prepare >"$RUN_DIR/$engine-prepare.log" 2>&1 || die "sysbench prepare on $engine failed"
    # The tables are sysbench's now: forget any earlier fairbench load of this
    # dataset, so fairbench reuses them instead of replacing them.
    sql "$engine" "DELETE FROM fairbench_datasets WHERE dataset = 'oltp'" >/dev/null 2>&1 || true
    for mode in $MODES; do
        for th in $THREADS; do
            for rep in $(seq 1 "$REPS"); do
                # The order alternates (S F, F S, S F, …) so that a machine that
                # slows down or speeds up during a cell favours neither tool.
                order="sysbench fairbench"
                [ $((rep % 2)) -eq 0 ] && order="fairbench sysbench"
                for tool in $order; do
                    log=$RUN_DIR/$engine-$mode-t$th-$tool-$rep.log
                    if [ $tool = sysbench ]; then
                        # shellcheck disable=SC2046
                        timed "$log" sysbench "oltp_$mode" $(sb_args "$engine") --tables="$TABLES" --table-size="$TABLE_SIZE" \
                            --threads="$th" --time="$DURATION" --report-interval=0 run
                    else
                        # shellcheck disable=SC2046
                        timed "$log" "$FB" run --results "$RUN_DIR/fairbench.db" --target "$(fb_url "$engine")" --workload oltp \
                            --mode "$mode" --tables "$TABLES" --table-size "$TABLE_SIZE" \
                            --threads "$th" $(fb_jobs "$th") --time "$DURATION" --max-tries 100
                    fi
                    parse "$log"
                    cpu=$(awk -v u="$T_USER" -v s="$T_SYS" 'BEGIN {printf "%.3f", u + s}')
                    per=$(awk -v c="$cpu" -v n="$R_TXN" 'BEGIN {printf "%.1f", (n > 0 ? c * 1e6 / n : 0)}')
                    echo "$engine,$tool,$mode,$th,$rep,$DURATION,$R_TXN,$R_TPS,$T_USER,$T_SYS,$cpu,$per,$log" >>"$CSV"
                    printf '   %-8s %-12s t=%-2s rep %d %-9s %10.1f tps  %7.1f µs CPU/txn\n' \
                        "$engine" "$mode" "$th" "$rep" "$tool" "$R_TPS" "$per"
                done
            done
        done
    done
done

# ------------------------------------------------------------------ table

{
    echo
    echo "medians over $REPS repetitions (TPS as each tool reports it; CPU = the tool's user+sys per transaction)"
    echo "paired = geometric mean of each repetition's fairbench/sysbench TPS ratio (the two runs back to back), [95 % interval]"
    # the paired ratios (bench/ratio.awk) join the table as extra rows "paired KEY ..."
    { awk -F, 'NR > 1 {print $1 " " $3 " " $4 "," $2 "," $5 "," $8}' "$CSV" |
        awk -F, -v ref=sysbench -v new=fairbench -f "$ROOT/bench/ratio.awk" | sed 's/^/paired,/'
      cat "$CSV"; } |
    awk -F, '$1 == "paired" {pr[$2] = ($5 == "NA") ? sprintf("%.2f", $4) : sprintf("%.2f [%.2f, %.2f]", $4, $5, $6); next}
        $1 == "engine" {next}
        {k = $1 " " $3 " " $4; keys[k] = 1; tps[k, $2] = tps[k, $2] " " $8; cpu[k, $2] = cpu[k, $2] " " $12}
        function median(s,   a, n, i, j, t) {
            n = split(s, a, " ")
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END {
            printf "%-9s %-13s %3s  %12s %12s %9s  %12s %12s %9s  %s\n", "engine", "mode", "thr", "sysbench", "fairbench", "TPS ratio", "sb µs/txn", "fb µs/txn", "CPU ratio", "paired TPS ratio [95 %]"
            for (k in keys) {
                split(k, p, " ")
                ts = median(tps[k, "sysbench"]); tf = median(tps[k, "fairbench"])
                cs = median(cpu[k, "sysbench"]); cf = median(cpu[k, "fairbench"])
                printf "%-9s %-13s %3s  %12.1f %12.1f %8.2fx  %12.1f %12.1f %8.2fx  %s\n", p[1], p[2], p[3], ts, tf, tf / ts, cs, cf, cf / cs, pr[k]
            }
        }' | sort
    echo
    echo "raw rows: $CSV"
} | tee -a "$SUMMARY"
