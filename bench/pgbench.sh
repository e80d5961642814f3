#!/usr/bin/env bash
# bench/pgbench.sh — fairbench against pgbench on the same PostgreSQL, in one run.
#
#   bench/pgbench.sh                      # local test server (scripts/test-servers.sh)
#   PGURL=postgres://u:p@host/db bench/pgbench.sh
#
# 1. Load timing: `pgbench -i -s SCALE -q` vs `fairbench load --workload tpcb
#    --scale SCALE --replace`, LOAD_REPS times each, interleaved (P F P F),
#    each starting from no pgbench_* tables (dropped untimed before each load:
#    fairbench reuses existing tables of the right scale instead of loading);
#    both must produce pgbench's tables (row counts and primary keys checked).
# 2. Run matrix: for each mode × clients, REPS repetitions interleaved, the
#    order alternating (pgbench fairbench, fairbench pgbench, …), each
#    DURATION seconds with the same
#    query mode on the same scale-SCALE data. Captured per run: TPS, the
#    transaction count and the client's CPU seconds (user+sys of the child,
#    from bash's `time`).
# 3. Table of medians and ratios, and the paired ratio: the geometric mean of
#    each repetition's fairbench/pgbench TPS with its 95 % interval
#    (bench/ratio.awk), which this VM's run-to-run noise makes necessary; raw rows in bench/out/pgbench-<stamp>.csv,
#    every tool output in bench/out/pgbench-<stamp>/.
#
# Vacuum policy: neither tool vacuums (pgbench -n, fairbench --no-vacuum);
# before every run this script does pgbench's own pre-run steps through psql
# (VACUUM pgbench_branches; VACUUM pgbench_tellers; TRUNCATE pgbench_history),
# so both tools start from the same state prepared the same way.
#
# Environment knobs (defaults in brackets):
#   PGURL         target; unset = start/use the local test server []
#   DURATION      seconds per run [20]          REPS        repetitions per cell [3]
#   QUERY_MODE    simple|extended|prepared [prepared]
#   MODES         ["select-only tpcb-like"]     CLIENTS     ["1 2 8"]
#   SCALE         [10]                          LOAD_REPS   load timings per tool, 0 = skip [2]
#   PGBENCH_JOBS  pgbench -j; empty = min(clients, nproc) []
#   RUN_DATA      pgbench|fairbench: whose load the runs use [pgbench]
#   WARMUP        seconds of untimed pgbench -S before the matrix, 0 = none [5]
#   OUT_DIR       [bench/out]
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${DURATION:-20}; DURATION=${DURATION%s}
REPS=${REPS:-3}
QUERY_MODE=${QUERY_MODE:-prepared}
MODES=${MODES:-select-only tpcb-like}
CLIENTS=${CLIENTS:-1 2 8}
SCALE=${SCALE:-10}
LOAD_REPS=${LOAD_REPS:-2}
PGBENCH_JOBS=${PGBENCH_JOBS:-}
RUN_DATA=${RUN_DATA:-pgbench}
WARMUP=${WARMUP:-5}; WARMUP=${WARMUP%s}
OUT_DIR=${OUT_DIR:-$ROOT/bench/out}

log() { printf '%s\n' "$*"; }

require_positive DURATION REPS SCALE
is_uint "$LOAD_REPS" || die "LOAD_REPS must be >= 0 (got '$LOAD_REPS')"
is_uint "$WARMUP" || die "WARMUP must be whole seconds (got '$WARMUP')"
[ -z "$PGBENCH_JOBS" ] || is_uint "$PGBENCH_JOBS" || die "PGBENCH_JOBS must be a number (got '$PGBENCH_JOBS')"
case $QUERY_MODE in simple | extended | prepared) ;; *) die "QUERY_MODE must be simple, extended or prepared (got '$QUERY_MODE')" ;; esac
case $RUN_DATA in pgbench | fairbench) ;; *) die "RUN_DATA must be pgbench or fairbench (got '$RUN_DATA')" ;; esac
for m in $MODES; do
    case $m in select-only | tpcb-like) ;; *) die "MODES: unknown mode '$m' (select-only, tpcb-like)" ;; esac
done
for c in $CLIENTS; do is_positive "$c" || die "CLIENTS: bad client count '$c'"; done

# ------------------------------------------------------------------ set-up

if [ -z "${PGURL:-}" ]; then
    start_test_servers
    PGURL=$(test_env FAIRBENCH_TEST_PG)
fi
if ! command -v pgbench >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
    # On Debian 12 pgbench ships in postgresql-15 (pulled in by postgresql-contrib).
    apt_install postgresql-client postgresql-contrib
fi
psql "$PGURL" -XqAt -c 'select 1' >/dev/null || die "cannot connect to the target with psql"

bash scripts/build.sh || die "scripts/build.sh failed"
FB=$ROOT/fairbench
[ -x "$FB" ] || die "scripts/build.sh did not produce $FB"

STAMP=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT_DIR"
RUN_DIR=$OUT_DIR/pgbench-$STAMP
mkdir -p "$RUN_DIR"
CSV=$OUT_DIR/pgbench-$STAMP.csv
SUMMARY=$OUT_DIR/pgbench-$STAMP-summary.txt
RESULTS=$RUN_DIR/fairbench-results.db
echo "kind,tool,mode,clients,jobs,rep,query_mode,vacuum,scale,duration_s,txn,tps,wall_s,user_s,sys_s,cpu_s,cpu_s_per_1000_txn,log" >"$CSV"

cpu_model() {
    local m
    m=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
    [ -n "$m" ] || m=$(lscpu 2>/dev/null | awk -F': *' '/^Model name/ {print $2; exit}')
    printf '%s' "${m:-unknown}"
}
first_line() { local o; o=$("$@" 2>/dev/null) && printf '%s' "${o%%$'\n'*}"; return 0; }
NPROC=$(nproc)
FB_VERSION=$(first_line "$FB" version)
[ -n "$FB_VERSION" ] || FB_VERSION=$(first_line "$FB" --version)

n_modes=$(wc -w <<<"$MODES"); n_clients=$(wc -w <<<"$CLIENTS")
N_RUNS=$((n_modes * n_clients * REPS * 2))
EST_MIN=$(((N_RUNS * (DURATION + 2) + LOAD_REPS * 2 * 15 + 30 + WARMUP) / 60 + 1))

cat <<INFO
== fairbench vs pgbench ($(date -u +%FT%TZ))
host:        $(uname -srm), nproc $NPROC
cpu:         $(cpu_model)
pgbench:     $(pgbench --version)
fairbench:   ${FB_VERSION:-unknown} (git $(git describe --tags --always --dirty 2>/dev/null || echo n/a))
server:      $(psql "$PGURL" -XAt -c 'select version()')
target:      $(redact "$PGURL")
settings:    scale $SCALE, $DURATION s per run, $REPS reps, query mode $QUERY_MODE, modes: $MODES, clients: $CLIENTS
threads:     -j ${PGBENCH_JOBS:-min(clients, $NPROC)} for both tools (fairbench multiplexes clients on that many event loops when clients > threads)
vacuum:      neither tool vacuums (pgbench -n, fairbench --no-vacuum); before every run the script runs
             pgbench's pre-run steps via psql: VACUUM pgbench_branches, VACUUM pgbench_tellers, TRUNCATE pgbench_history
order:       interleaved within each (mode, clients) cell, alternating: pgbench fairbench, fairbench pgbench, ...
runs:        $N_RUNS measured runs, about $EST_MIN min in total
raw rows:    $CSV
tool output: $RUN_DIR/
INFO

# timed LOG CMD... — run CMD with its output in LOG; sets T_WALL T_USER T_SYS
# (seconds; user/sys are the CPU time of CMD and its waited-for children).
timed() {
    local out=$1; shift
    local tf rc=0 TIMEFORMAT='%3R %3U %3S'
    tf=$(mktemp)
    { time "$@" >"$out" 2>&1; } 2>"$tf" || rc=$?
    read -r T_WALL T_USER T_SYS <"$tf" || true
    rm -f "$tf"
    if [ "$rc" -ne 0 ]; then
        echo "--- last lines of $out:" >&2
        tail -n 20 "$out" | sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#g' >&2
        die "command failed with exit status $rc: $(redact "$*")"
    fi
}

# sql STATEMENT... — run statements one by one (VACUUM cannot run in a transaction).
sql() {
    local args=() s
    for s in "$@"; do args+=(-c "$s"); done
    psql "$PGURL" -XqAt -v ON_ERROR_STOP=1 "${args[@]}"
}

# check_dataset LABEL — the pgbench tables hold exactly scale-SCALE data with
# primary keys, and the history is empty.
check_dataset() {
    local got want
    got=$(sql "select (select count(*) from pgbench_branches) || ' ' || (select count(*) from pgbench_tellers) || ' '
               || (select count(*) from pgbench_accounts) || ' ' || (select count(*) from pgbench_history) || ' '
               || (select count(*) from pg_index i join pg_class c on c.oid = i.indrelid
                   where i.indisprimary and c.relname in ('pgbench_branches', 'pgbench_tellers', 'pgbench_accounts'))" 2>&1) \
        || die "$1: cannot read the pgbench tables: $got"
    want="$SCALE $((SCALE * 10)) $((SCALE * 100000)) 0 3"
    [ "$got" = "$want" ] || die "$1: branches/tellers/accounts/history rows and primary keys are '$got', want '$want'"
}

pre_run() { sql 'vacuum pgbench_branches' 'vacuum pgbench_tellers' 'truncate pgbench_history' >/dev/null; }

# parse_summary LOG — sets R_TXN and R_TPS from pgbench-style summary lines.
parse_summary() {
    R_TXN=$(awk -F': *' '/^number of transactions actually processed:/ {split($2, a, "/"); print a[1]; exit}' "$1")
    R_TPS=$(awk '/^tps = / && /without initial connection time/ {print $3; exit}' "$1")
    [[ $R_TXN =~ ^[0-9]+$ ]] || die "$1: no 'number of transactions actually processed:' line"
    [[ $R_TPS =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "$1: no 'tps = X (without initial connection time)' line"
}

# csv_row KIND TOOL MODE CLIENTS JOBS REP TXN TPS LOG — uses T_WALL T_USER T_SYS.
csv_row() {
    awk -v OFS=, -v kind="$1" -v tool="$2" -v mode="$3" -v c="$4" -v j="$5" -v rep="$6" -v qm="$QUERY_MODE" \
        -v sc="$SCALE" -v d="$DURATION" -v txn="$7" -v tps="$8" -v w="$T_WALL" -v u="$T_USER" -v s="$T_SYS" -v logf="${9#"$ROOT"/}" \
        'BEGIN {
            cpu = u + s
            per = (txn > 0) ? sprintf("%.4f", cpu * 1000 / txn) : ""
            if (kind == "load") { qm = ""; d = ""; vac = "" } else vac = "external"
            print kind, tool, mode, c, j, rep, qm, vac, sc, d, txn, tps, w, u, s, sprintf("%.3f", cpu), per, logf
        }' >>"$CSV"
}

median() {
    sort -g | awk '{a[NR] = $1} END {
        if (NR == 0) { print "NA"; exit }
        if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || b + 0 == 0) print "NA"; else printf "%.2f", a / b }'; }
fmt() { awk -v x="$1" -v f="$2" 'BEGIN { if (x == "NA") print "NA"; else printf f, x }'; }
# paired_raw MODE CLIENTS → bench/ratio.awk's line for the cell's paired runs
paired_raw() {
    awk -F, -v m="$1" -v c="$2" 'NR > 1 && $1 == "run" && $3 == m && $4 == c {print "cell," $2 "," $6 "," $12}' "$CSV" |
        awk -F, -v ref=pgbench -v new=fairbench -f "$ROOT/bench/ratio.awk"
}
# paired MODE CLIENTS → "0.97 [0.90, 1.05]"
paired() { paired_raw "$1" "$2" | awk -F, '{ if ($4 == "NA") printf "%.2f", $3; else printf "%.2f [%.2f, %.2f]", $3, $4, $5 }'; }
# verdict MODE CLIENTS CPU_RATIO → the cell against the target (fairbench ≥ 1.0×
# pgbench's TPS with ≤ 1.3× its client CPU per transaction). The TPS part is
# decided by the paired interval: "met" above 1.0, "missed" below, "not shown"
# while it holds 1.0 (more REPS narrow it).
verdict() {
    paired_raw "$1" "$2" | awk -F, -v cpu="$3" '{
        if (cpu == "NA" || $3 == "NA") { print "NA"; exit }
        if (cpu + 0 > 1.3) { print "missed (cpu)"; exit }
        if ($4 == "NA") print "not shown (1 pair)"
        else if ($4 + 0 >= 1) print "met"
        else if ($5 + 0 < 1) print "missed"
        else print "not shown (interval holds 1.0)"
    }'
}
# csv_median KIND TOOL MODE CLIENTS FIELD#
csv_median() {
    awk -F, -v k="$1" -v t="$2" -v m="$3" -v c="$4" -v f="$5" \
        'NR > 1 && $1 == k && $2 == t && $3 == m && $4 == c && $f != "" {print $f}' "$CSV" | median
}

# ------------------------------------------------------------------ loads

drop_tables() {
    PGOPTIONS='-c client_min_messages=warning' \
        sql 'drop table if exists pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history' >/dev/null
}
pgbench_load() { pgbench -i -s "$SCALE" -q "$PGURL"; }
fairbench_load() { "$FB" load --target "$PGURL" --workload tpcb --scale "$SCALE" --replace; }

if [ "$LOAD_REPS" -gt 0 ]; then
    log ""
    log "== load: pgbench -i -s $SCALE -q  vs  fairbench load --workload tpcb --scale $SCALE --replace (wall time)"
    log "   each load starts from no pgbench_* tables (dropped before it, untimed)"
    for ((rep = 1; rep <= LOAD_REPS; rep++)); do
        for tool in pgbench fairbench; do
            out=$RUN_DIR/load-$tool-$rep.log
            drop_tables # untimed, so that neither tool can reuse the other's tables
            timed "$out" "${tool}_load"
            if grep -qi 'reusing existing' "$out"; then
                die "$out: the $tool load reused existing tables instead of loading; its time is not a load time"
            fi
            check_dataset "$tool load $rep"
            csv_row load "$tool" load "" "" "$rep" "" "" "$out"
            printf '  load %d %-9s wall %7.2f s  client cpu %6.2f s\n' "$rep" "$tool" "$T_WALL" "$(awk -v u="$T_USER" -v s="$T_SYS" 'BEGIN {print u + s}')"
        done
    done
    LP=$(csv_median load pgbench load "" 13); LF=$(csv_median load fairbench load "" 13)
    printf '  median wall: pgbench %s s, fairbench %s s, ratio fairbench/pgbench %s\n' \
        "$(fmt "$LP" %.2f)" "$(fmt "$LF" %.2f)" "$(ratio "$LF" "$LP")"
fi

log ""
if [ "$RUN_DATA" = fairbench ]; then
    if [ "$LOAD_REPS" -eq 0 ]; then
        log "== data for the runs: fairbench load (untimed)"
        timed "$RUN_DIR/load-data.log" fairbench_load
    else
        log "== data for the runs: the last fairbench load"
    fi
else
    log "== data for the runs: pgbench -i -s $SCALE (untimed; pgbench's reference data)"
    timed "$RUN_DIR/load-data.log" pgbench_load
fi
check_dataset "run data"

if [ "$WARMUP" -gt 0 ]; then
    log "== warm-up: pgbench -S, ${WARMUP} s, not recorded"
    timed "$RUN_DIR/warmup.log" pgbench -n -S -c 2 -j "$((NPROC < 2 ? NPROC : 2))" -T "$WARMUP" "$PGURL"
fi

# ------------------------------------------------------------------ runs

log ""
log "== runs"
i=0
for mode in $MODES; do
    for c in $CLIENTS; do
        jobs=${PGBENCH_JOBS:-$((c < NPROC ? c : NPROC))}
        for ((rep = 1; rep <= REPS; rep++)); do
            # The order alternates (P F, F P, P F, …) so that a machine that
            # slows down or speeds up during a cell favours neither tool.
            order="pgbench fairbench"
            [ $((rep % 2)) -eq 0 ] && order="fairbench pgbench"
            for tool in $order; do
                i=$((i + 1))
                out=$RUN_DIR/$mode-c$c-$tool-$rep.log
                pre_run
                if [ "$tool" = pgbench ]; then
                    timed "$out" pgbench -n -b "$mode" -M "$QUERY_MODE" -c "$c" -j "$jobs" -T "$DURATION" "$PGURL"
                    j=$jobs
                else
                    timed "$out" "$FB" run --target "$PGURL" --workload tpcb --mode "$mode" --scale "$SCALE" \
                        -c "$c" -j "$jobs" -T "${DURATION}s" -M "$QUERY_MODE" --no-vacuum --results "$RESULTS"
                    j=$jobs
                fi
                parse_summary "$out"
                csv_row run "$tool" "$mode" "$c" "$j" "$rep" "$R_TXN" "$R_TPS" "$out"
                printf '  [%2d/%d] %-11s c=%-2s rep %d %-9s %10.1f tps %9d txn  cpu %6.2f s\n' \
                    "$i" "$N_RUNS" "$mode" "$c" "$rep" "$tool" "$R_TPS" "$R_TXN" \
                    "$(awk -v u="$T_USER" -v s="$T_SYS" 'BEGIN {print u + s}')"
            done
        done
    done
done

# ------------------------------------------------------------------ summary

{
    echo ""
    echo "== summary: medians of $REPS runs, $DURATION s each, -M $QUERY_MODE, scale $SCALE, external vacuum (-n / --no-vacuum)"
    echo "   cpu = client user+sys seconds per 1000 transactions; ratios are fairbench / pgbench"
    echo "   paired = geometric mean of each repetition's fairbench/pgbench TPS ratio (the two runs back to back), [95 % interval]"
    echo "   target = fairbench ≥ 1.0× pgbench's TPS (by the paired interval) with ≤ 1.3× its client CPU per transaction"
    printf '%-12s %7s %12s %14s %9s %12s %14s %9s  %-24s %s\n' mode clients "pgbench tps" "fairbench tps" "tps ratio" "pgbench cpu" "fairbench cpu" "cpu ratio" "paired tps ratio [95 %]" target
    for mode in $MODES; do
        for c in $CLIENTS; do
            pt=$(csv_median run pgbench "$mode" "$c" 12); ft=$(csv_median run fairbench "$mode" "$c" 12)
            pc=$(csv_median run pgbench "$mode" "$c" 17); fc=$(csv_median run fairbench "$mode" "$c" 17)
            cr=$(ratio "$fc" "$pc")
            printf '%-12s %7s %12s %14s %9s %12s %14s %9s  %-24s %s\n' "$mode" "$c" \
                "$(fmt "$pt" %.0f)" "$(fmt "$ft" %.0f)" "$(ratio "$ft" "$pt")" \
                "$(fmt "$pc" %.3f)" "$(fmt "$fc" %.3f)" "$cr" "$(paired "$mode" "$c")" "$(verdict "$mode" "$c" "$cr")"
        done
    done
    if [ "$LOAD_REPS" -gt 0 ]; then
        lr=$(ratio "$LF" "$LP")
        printf '%-12s median wall: pgbench %s s, fairbench %s s, ratio %s (target ≤ 1.0: %s)\n' "load" \
            "$(fmt "$LP" %.2f)" "$(fmt "$LF" %.2f)" "$lr" \
            "$(awk -v r="$lr" 'BEGIN { if (r == "NA") print "NA"; else if (r + 0 <= 1) print "met"; else print "missed" }')"
    fi
    echo ""
    echo "raw rows: ${CSV#"$ROOT"/}"
} | tee "$SUMMARY"
