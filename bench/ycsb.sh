#!/usr/bin/env bash
# bench/ycsb.sh — fairbench's native ycsb workload against go-ycsb v1.0.1 and
# Java YCSB 0.18.0-SNAPSHOT (d9faaac8) on the same Redis, PostgreSQL and
# FerretDB, in one run.
#
#   bash bench/ycsb.sh                                   # all three engines, workloads A and C, 3 reps
#   ENGINES=redis WORKLOADS=a REPS=5 bash bench/ycsb.sh
#   FERRETDB=mongodb://127.0.0.1:27019/ycsb bash bench/ycsb.sh
#   PHASE=load RECORDS=1000000 ENGINES="redis postgres" REPS=2 bash bench/ycsb.sh   # the loads only
#
# Per engine, each tool loads its own copy of the data once (RECORDS records
# of 10 fields × 100 bytes, the load phase being the same for every core
# workload): Redis in a database number of its own (Java 0, go-ycsb 1,
# fairbench 2: Java's redis binding has no database option), PostgreSQL and
# FerretDB in a table/collection of its own (Java's JDBC table created
# beforehand). Then for each workload × repetition the three tools run back to
# back, the order rotating, each OPS operations on THREADS threads with the
# same workload file (Java YCSB's workloads/workload[ac]; go-ycsb with
# -p workload=core; fairbench --preset):
#   fairbench run --target URL --workload ycsb --preset a -p operationcount=M --threads T --duration Ds --warmup 0 --results F
#   go-ycsb run redis|postgresql|mongodb -P workloads/workloada -p workload=core -p operationcount=M -p threadcount=T ...
#   bin/ycsb.sh run redis|jdbc|mongodb -P workloads/workloada -p operationcount=M -threads T ...
# Kept per run: throughput (Java's and fairbench's [OVERALL] Throughput, go-ycsb's
# final TOTAL OPS), operations, and the client's CPU seconds (user + sys of the
# tool's process tree from bash's `time`, start-up included: the JVM's counts).
# Printed per cell (engine × workload): each tool's median throughput, the
# paired ratios fairbench/go-ycsb and fairbench/Java (geometric mean over the
# repetitions [min–max of the per-repetition ratios]) and each tool's median
# client CPU µs per operation. A tool whose command fails is reported and
# skipped, the others go on. Rows in bench/out/ycsb-<stamp>.csv, every output
# in bench/out/ycsb-<stamp>/.
#
# PHASE=load compares the loads instead: per engine and repetition the tools
# load RECORDS records (FerretDB: FERRET_RECORDS) back to back, the order
# rotating, each into its own database number / table / collection, after
# cleaning only what that tool created there (Redis: fairbench load --clean in
# database 2, FLUSHDB of go-ycsb's 1 and Java's 0; PostgreSQL: fairbench load
# --clean, go-ycsb's dropdata=true, TRUNCATE of Java's usertable; FerretDB: a
# collection per tool and repetition, usertable_<tool>_<stamp>_<rep>, fairbench's
# cleaned after its load, the peers' left: no MongoDB shell here). Redis's
# copies are also dropped right after their load (memory).
#   fairbench load --target URL --workload ycsb -p recordcount=N [-p table=T] --replace
#   go-ycsb load redis|postgresql|mongodb -P workloads/workloada -p workload=core -p recordcount=N -p threadcount=T
#   bin/ycsb.sh load redis|jdbc|mongodb -P workloads/workloada -p recordcount=N -threads T (jdbc: db.batchsize=1000, autocommit off)
# Kept per load, from /usr/bin/time around the tool's process: records/s
# (records over the wall time, start-up included), client CPU seconds and peak
# RSS; on Redis also the server's CPU seconds (/proc of the script's Redis). Printed per engine: each tool's median records/s, the paired ratios, CPU
# µs per record and peak RSS in MiB. fairbench loads with its own load
# workers (4), the peers with THREADS threads.
#
# Servers: Redis is a private redis-server on 127.0.0.1:REDIS_PORT started (and
# stopped) by the script, since the tools' loads flush and Java writes bare
# keys into database 0; PostgreSQL is the test server (scripts/test-servers.sh)
# or PGURL, in a database PGDB the script drops and creates (the role
# needs CREATEDB); FerretDB (or any MongoDB) is FERRETDB, which the script
# neither starts nor cleans: each run's collections carry the run's stamp
# (usertable_<tool>_<stamp>) in go-ycsb's fixed database ycsb.
#
# Environment (defaults in brackets): PHASE [run] run or load; REPS [3];
# THREADS [4]; RECORDS [10000]; OPS [20000] operations per run; FERRET_RECORDS
# [1000] and FERRET_OPS [1000] for FerretDB (its SQLite backend does tens of
# reads per second); WORKLOADS ["a c"]; ENGINES ["redis postgres ferretdb"];
# TOOLS ["fairbench go-ycsb java"]; FERRETDB [mongodb://127.0.0.1:27018/ycsb];
# REDIS_PORT [6393]; PGURL [the test server: unset, scripts/test-servers.sh
# runs first and (re)starts the test servers]; PGDB [ycsb_bench] the database
# the script drops and creates there; DURATION [120] fairbench's --duration cap
# in seconds (the runs end at OPS operations); OUT_DIR [bench/out].
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPS=${REPS:-3}; THREADS=${THREADS:-4}; RECORDS=${RECORDS:-10000}; OPS=${OPS:-20000}
FERRET_RECORDS=${FERRET_RECORDS:-1000}; FERRET_OPS=${FERRET_OPS:-1000}
WORKLOADS=${WORKLOADS:-a c}; ENGINES=${ENGINES:-redis postgres ferretdb}; TOOLS=${TOOLS:-fairbench go-ycsb java}
FERRETDB=${FERRETDB:-mongodb://127.0.0.1:27018/ycsb}; REDIS_PORT=${REDIS_PORT:-6393}
DURATION=${DURATION:-120}; DURATION=${DURATION%s}; OUT_DIR=${OUT_DIR:-$ROOT/bench/out}
PHASE=${PHASE:-run}; PGDB=${PGDB:-ycsb_bench}
case $PHASE in run | load) ;; *) die "PHASE: unknown phase '$PHASE' (run or load)" ;; esac
[[ $PGDB =~ ^[a-z_][a-z0-9_]*$ ]] || die "PGDB: '$PGDB' is not a plain database name (lower-case letters, digits, _)"
require_positive REPS THREADS RECORDS OPS FERRET_RECORDS FERRET_OPS REDIS_PORT DURATION
for w in $WORKLOADS; do case $w in a | b | c | d | e | f) ;; *) die "WORKLOADS: unknown workload '$w' (a to f)" ;; esac; done
for e in $ENGINES; do case $e in redis | postgres | ferretdb) ;; *) die "ENGINES: unknown engine '$e' (redis, postgres, ferretdb)" ;; esac; done
for t in $TOOLS; do case $t in fairbench | go-ycsb | java) ;; *) die "TOOLS: unknown tool '$t' (fairbench, go-ycsb, java)" ;; esac; done

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$OUT_DIR/ycsb-$STAMP
CSV=$OUT_DIR/ycsb-$STAMP.csv
mkdir -p "$OUT"
log() { printf '%s\n' "$*"; }

# --- tools --------------------------------------------------------------------
has_tool() { [[ " $TOOLS " == *" $1 "* ]]; }
if has_tool fairbench; then
    bash scripts/build.sh >/dev/null 2>&1 || die "scripts/build.sh failed"
    FB=$ROOT/fairbench
fi
GOYCSB=${GOYCSB:-$(bash scripts/install-go-ycsb.sh "$ROOT/.bin")} || die "go-ycsb could not be built"
YCSB_SH=${YCSB_SH:-$(bash scripts/install-ycsb-java.sh "$ROOT/.bin")} || die "Java YCSB could not be built (scripts/install-ycsb-java.sh)"
JAVA_HOME_DIR=$(cd "$(dirname "$YCSB_SH")/.." && pwd)
WL=$JAVA_HOME_DIR/workloads  # YCSB's workload files, for go-ycsb too
# Secrets (the PostgreSQL password for Java's -P file) in a private folder.
SECRETS=$(mktemp -d)
REDIS_PID=
cleanup() {
    rm -rf "$SECRETS"
    if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

# --- servers ------------------------------------------------------------------
has_engine() { [[ " $ENGINES " == *" $1 "* ]]; }
if has_engine redis; then
    start_private_redis "$REDIS_PORT" "$OUT/redis"
fi
if has_engine postgres; then
    if [ -z "${PGURL:-}" ]; then
        start_test_servers
        PGURL=$(test_env FAIRBENCH_TEST_PG)
    fi
    command -v psql >/dev/null 2>&1 || apt_install postgresql-client
    psql "$PGURL" -XqAt -c 'select 1' >/dev/null || die "cannot connect to PGURL with psql"
    PGOPTIONS="-c client_min_messages=warning" psql -Xq "$PGURL" -c "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" -c "CREATE DATABASE $PGDB" >/dev/null \
        || die "could not create database $PGDB (the role needs CREATEDB)"
    BENCH_PG=$(sed -E "s#/[^/?]*(\\?|\$)#/$PGDB\\1#" <<<"$PGURL")
    # host, port, user, password of PGURL
    pg_rest=${PGURL#*://}; pg_cred=${pg_rest%%@*}; pg_rest=${pg_rest#*@}; pg_hp=${pg_rest%%/*}
    PG_USER=${pg_cred%%:*}; PG_PASS=; [[ $pg_cred == *:* ]] && PG_PASS=${pg_cred#*:}
    PG_HOST=${pg_hp%:*}; PG_PORT=5432; [[ $pg_hp == *:* ]] && PG_PORT=${pg_hp##*:}
    printf 'db.passwd=%s\n' "$PG_PASS" >"$SECRETS/pg.properties"
    psql -Xq "$BENCH_PG" -c "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT, FIELD2 TEXT, FIELD3 TEXT, FIELD4 TEXT, FIELD5 TEXT, FIELD6 TEXT, FIELD7 TEXT, FIELD8 TEXT, FIELD9 TEXT)" \
        || die "could not create Java YCSB's usertable in $PGDB"
fi
if has_engine ferretdb; then
    fhp=${FERRETDB#mongodb://}; fhp=${fhp%%/*}; fhp=${fhp##*@}
    (exec 3<>"/dev/tcp/${fhp%:*}/${fhp##*:}") 2>/dev/null || die "FerretDB not reachable at $(redact "$FERRETDB") (set FERRETDB)"
fi

records() { if [ "$1" = ferretdb ]; then echo "$FERRET_RECORDS"; else echo "$RECORDS"; fi; }
opcount() { if [ "$1" = ferretdb ]; then echo "$FERRET_OPS"; else echo "$OPS"; fi; }

# fb_target ENGINE / fb_table ENGINE — fairbench's target and -p table options
fb_target() {
    case $1 in
    redis) echo "redis://127.0.0.1:$REDIS_PORT/2" ;;
    postgres) echo "$BENCH_PG" ;;
    ferretdb) echo "$FERRETDB" ;;
    esac
}
# FerretDB's collections end in FERRET_SUFFIX: the run's stamp, and in PHASE=load the repetition.
FERRET_SUFFIX=${STAMP//-/_}
fb_table() { case $1 in redis) ;; postgres) echo "-p table=usertable_fairbench" ;; ferretdb) echo "-p table=usertable_fairbench_$FERRET_SUFFIX" ;; esac; }

# goycsb ENGINE load|run WORKLOAD ARGS... — go-ycsb on the engine
goycsb() {
    local e=$1 cmd=$2 w=$3
    shift 3
    case $e in
    redis) "$GOYCSB" "$cmd" redis -P "$WL/workload$w" -p workload=core -p redis.addr=127.0.0.1:"$REDIS_PORT" -p redis.db=1 "$@" ;;
    postgres) PGPASSWORD=$PG_PASS "$GOYCSB" "$cmd" postgresql -P "$WL/workload$w" -p workload=core -p pg.host="$PG_HOST" -p pg.port="$PG_PORT" \
        -p pg.user="$PG_USER" -p pg.db="$PGDB" -p pg.sslmode=disable -p table=usertable_goycsb "$@" ;;
    ferretdb) "$GOYCSB" "$cmd" mongodb -P "$WL/workload$w" -p workload=core -p mongodb.url="$FERRETDB" -p table="usertable_goycsb_$FERRET_SUFFIX" "$@" ;;
    esac
}
# java ENGINE load|run WORKLOAD ARGS... — Java YCSB on the engine
java_ycsb() {
    local e=$1 cmd=$2 w=$3
    shift 3
    case $e in
    redis) (cd "$JAVA_HOME_DIR" && bin/ycsb.sh "$cmd" redis -P "workloads/workload$w" -p redis.host=127.0.0.1 -p redis.port="$REDIS_PORT" "$@") ;;
    postgres) (cd "$JAVA_HOME_DIR" && bin/ycsb.sh "$cmd" jdbc -P "workloads/workload$w" -P "$SECRETS/pg.properties" -p db.driver=org.postgresql.Driver \
        -p db.url="jdbc:postgresql://$PG_HOST:$PG_PORT/$PGDB" -p db.user="$PG_USER" "$@") ;;
    ferretdb) (cd "$JAVA_HOME_DIR" && bin/ycsb.sh "$cmd" mongodb -P "workloads/workload$w" -p mongodb.url="$FERRETDB" -p table="usertable_java_$FERRET_SUFFIX" "$@") ;;
    esac
}

# Tools that failed on an engine are skipped there from then on.
declare -A BROKEN=()
broken() {
    BROKEN[$1/$2]=1
    printf '\n%s: %s skipped on %s: %s (output: %s)\n' "$BENCH_NAME" "$2" "$1" "$3" "$4" >&2
}

# --- summary ------------------------------------------------------------------
# med CELL TOOL FILE — the median of column 4 of FILE's rows of CELL and TOOL.
med() { grep "^$1,$2," "$3" | cut -d, -f4 | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.1f", a[int((NR+1)/2)]; else printf "-"}'; }
# ratio CELL REF — fairbench/REF: geometric mean [min–max] over the repetitions both ran
ratio() {
    grep "^$1," "$CSV" | awk -F, -v ref="$2" '
        {v[$3, $2] = $4; reps[$3] = 1}
        END {
            n = 0; s = 0; lo = ""; hi = ""
            for (r in reps) {
                if (!((r, "fairbench") in v) || !((r, ref) in v) || v[r, ref] <= 0) continue
                x = v[r, "fairbench"] / v[r, ref]; n++; s += log(x)
                if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x
            }
            if (n == 0) print "-"; else printf "%.2f [%.2f-%.2f]\n", exp(s / n), lo, hi
        }'
}
# summarise — the table of the CSV's rows (cell,tool,rep,rate,cpu s,count[,wall s,peak RSS KiB]):
# per cell each tool's median rate, the paired ratios, median CPU µs per
# operation or record, and in PHASE=load the median peak RSS in MiB.
summarise() {
    local rss=
    awk -F, '{print $1 "," $2 "," $3 "," ($6 > 0 ? $5 / $6 * 1e6 : "")}' "$CSV" >"$CSV.cpu"
    if [ "$PHASE" = load ]; then
        awk -F, '{printf "%s,%s,%s,%.0f\n", $1, $2, $3, $8 / 1024}' "$CSV" >"$CSV.rss"
        rss=1
    fi
    {
        printf '%-18s %11s %11s %11s   %-20s %-20s %9s %9s %9s' cell go-ycsb java fairbench "fb/go-ycsb [min-max]" "fb/java [min-max]" \
            "cpu go" "cpu java" "cpu fb"
        [ -z "$rss" ] || printf ' %8s %8s %8s' "rss go" "rss java" "rss fb"
        echo
        while IFS= read -r k; do
            printf '%-18s %11s %11s %11s   %-20s %-20s %9s %9s %9s' "$k" "$(med "$k" go-ycsb "$CSV")" "$(med "$k" java "$CSV")" "$(med "$k" fairbench "$CSV")" \
                "$(ratio "$k" go-ycsb)" "$(ratio "$k" java)" "$(med "$k" go-ycsb "$CSV.cpu")" "$(med "$k" java "$CSV.cpu")" "$(med "$k" fairbench "$CSV.cpu")"
            [ -z "$rss" ] || printf ' %8s %8s %8s' "$(med "$k" go-ycsb "$CSV.rss")" "$(med "$k" java "$CSV.rss")" "$(med "$k" fairbench "$CSV.rss")"
            echo
        done < <(cut -d, -f1 "$CSV" | awk '!seen[$0]++')
        if [ -n "$rss" ]; then
            # Redis's own CPU per record, where the script started the server.
            awk -F, '$9 != "" && $6 > 0 {v[$1 " " $2] = v[$1 " " $2] sprintf(" %.1f", $9 / $6 * 1e6)}
                END {for (k in v) printf "server CPU µs per record, %s:%s\n", k, v[k]}' "$CSV" | sort
            echo "load: records/s (records over the tool's wall time, start-up included), median of $REPS reps (higher is better); ratios: geometric mean of the per-rep ratios [their min-max];"
            echo "cpu: client CPU µs (user+sys, start-up included) per record, median; rss: peak RSS MiB, median; rows: $CSV (cell,tool,rep,records/s,cpu s,records,wall s,peak RSS KiB,server CPU s)"
        else
            echo "throughput: operations/s, median of $REPS reps (higher is better); ratios: geometric mean of the per-rep ratios [their min-max];"
            echo "cpu: client CPU µs (user+sys, start-up included) per operation, median; rows: $CSV (cell,tool,rep,ops/s,cpu s,operations)"
        fi
        if [ ${#BROKEN[@]} -gt 0 ]; then echo "skipped (failed): ${!BROKEN[*]}"; fi
    } | tee "$OUT_DIR/ycsb-$STAMP-summary.txt"
}


# --- PHASE=load: the loads, in rotating order ---------------------------------
# The peers run under /usr/bin/time through bash -c, so their functions and
# settings are exported.
export -f goycsb java_ycsb
export GOYCSB WL REDIS_PORT FERRETDB STAMP JAVA_HOME_DIR SECRETS PGDB
export PG_HOST="${PG_HOST:-}" PG_PORT="${PG_PORT:-}" PG_USER="${PG_USER:-}" PG_PASS="${PG_PASS:-}"
command -v /usr/bin/time >/dev/null 2>&1 || apt_install time
# server_cpu ENGINE — the CPU seconds (user + sys) of the script's own Redis
# so far; empty for the servers it did not start.
server_cpu() {
    [ "$1" = redis ] && [ -n "$REDIS_PID" ] || return 0
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$REDIS_PID/stat"
}
# rotation REP — TOOLS in the order of repetition REP: each repetition starts one tool later,
# so every tool runs in every position as often as the repetitions allow.
rotation() {
    local tools i k
    read -r -a tools <<<"$TOOLS"
    k=${#tools[@]}
    for ((i = 0; i < k; i++)); do printf '%s\n' "${tools[$(((i + $1 - 1) % k))]}"; done
}
# tool_load ENGINE TOOL WORKLOAD N OUT [TIMEFILE] — cleans what TOOL created on ENGINE (the
# peers; fairbench replaces its own) and loads N records with it, output in OUT, under
# /usr/bin/time into TIMEFILE when one is given.
tool_load() {
    local e=$1 t=$2 w=$3 n=$4 f=$5 tf=${6:-} timed=() extra=()
    [ -z "$tf" ] || timed=(/usr/bin/time -f '%e %U %S %M' -o "$tf")
    case $t in
    fairbench)
        # shellcheck disable=SC2046
        "${timed[@]}" "$FB" load --target "$(fb_target "$e")" --workload ycsb -p recordcount="$n" $(fb_table "$e") --replace >"$f" 2>&1 ;;
    go-ycsb)
        case $e in
        redis) redis-cli -p "$REDIS_PORT" -n 1 flushdb >/dev/null ;;
        postgres) extra=(-p dropdata=true) ;;
        esac
        "${timed[@]}" bash -c 'goycsb "$@"' _ "$e" load "$w" -p recordcount="$n" -p threadcount="$THREADS" "${extra[@]}" >"$f" 2>&1 ;;
    java)
        case $e in
        redis) redis-cli -p "$REDIS_PORT" -n 0 flushdb >/dev/null ;;
        postgres) psql -Xq "$BENCH_PG" -c "TRUNCATE usertable" && extra=(-p db.batchsize=1000 -p jdbc.autocommit=false) ;;
        esac
        "${timed[@]}" bash -c 'java_ycsb "$@"' _ "$e" load "$w" -p recordcount="$n" -threads "$THREADS" "${extra[@]}" >"$f" 2>&1 ;;
    esac
}
# load_tool ENGINE TOOL REP — cleans what TOOL created on ENGINE, loads it
# under /usr/bin/time and appends a CSV row, or marks the tool broken.
load_tool() {
    local e=$1 t=$2 r=$3 n f tf wall usr sys rss srv0 srv1
    n=$(records "$e")
    srv0=$(server_cpu "$e")
    f=$OUT/$e-$t-load-$r.txt
    tf=$OUT/$e-$t-load-$r.time
    export FERRET_SUFFIX="${STAMP//-/_}_$r"
    if [ "$t" = fairbench ]; then
        # shellcheck disable=SC2046
        "$FB" load --target "$(fb_target "$e")" --workload ycsb -p recordcount="$n" $(fb_table "$e") --clean >"$f.clean" 2>&1 \
            || { broken "$e" "$t" "its --clean failed" "$f.clean"; return; }
    fi
    tool_load "$e" "$t" a "$n" "$f" "$tf" \
        || { broken "$e" "$t" "its load failed" "$f"; return; }
    srv1=$(server_cpu "$e")
    # Redis's copies are dropped as soon as they are measured (three copies
    # of a million records would hold ~5 GB), FerretDB's where fairbench can.
    case $e/$t in
    redis/fairbench | ferretdb/fairbench)
        # shellcheck disable=SC2046
        "$FB" load --target "$(fb_target "$e")" --workload ycsb -p recordcount="$n" $(fb_table "$e") --clean >"$f.clean" 2>&1 || true ;;
    redis/go-ycsb) redis-cli -p "$REDIS_PORT" -n 1 flushdb >/dev/null ;;
    redis/java) redis-cli -p "$REDIS_PORT" -n 0 flushdb >/dev/null ;;
    esac
    read -r wall usr sys rss <"$tf" || true
    if [ -z "${rss:-}" ]; then
        broken "$e" "$t" "no time in $tf" "$f"
        return
    fi
    echo "$e load,$t,$r,$(awk -v n="$n" -v w="$wall" 'BEGIN {printf "%.1f", (w > 0 ? n / w : 0)}'),$(awk -v u="$usr" -v s="$sys" 'BEGIN {print u + s}'),$n,$wall,$rss,$(awk -v a="$srv0" -v b="$srv1" 'BEGIN {if (a != "" && b != "") print b - a}')" >>"$CSV"
    printf '.'
}

if [ "$PHASE" = load ]; then
    log "ycsb.sh PHASE=load: engines [$ENGINES], tools [$TOOLS], $THREADS peer threads, $REPS reps; records $RECORDS (FerretDB $FERRET_RECORDS)"
    log "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); go-ycsb $(cat "$(dirname "$GOYCSB")/go-ycsb.version" 2>/dev/null); Java YCSB $(cat "$(dirname "$JAVA_HOME_DIR")/ycsb-java.version" 2>/dev/null); $(java -version 2>&1 | head -1)"
    [ -z "${PGURL:-}" ] || log "PostgreSQL: $(redact "$PGURL") (database $PGDB)"
    has_engine ferretdb && log "FerretDB: $(redact "$FERRETDB")"
    for e in $ENGINES; do
        printf '%s load ' "$e"
        for r in $(seq 1 "$REPS"); do
            for t in $(rotation "$r"); do
                [ -z "${BROKEN[$e/$t]:-}" ] || continue
                load_tool "$e" "$t" "$r"
            done
        done
        echo
    done
    [ -s "$CSV" ] || die "no load succeeded"
    if has_engine ferretdb; then
        log "FerretDB: the peers' collections usertable_goycsb_/usertable_java_${STAMP//-/_}_<rep> are left in $(redact "$FERRETDB") (no MongoDB shell here to drop them)"
    fi
    summarise
    exit 0
fi

# --- load ---------------------------------------------------------------------
log "ycsb.sh: engines [$ENGINES], workloads [$WORKLOADS], tools [$TOOLS], $THREADS threads, $REPS reps; records/ops $RECORDS/$OPS (FerretDB $FERRET_RECORDS/$FERRET_OPS)"
log "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); go-ycsb $(cat "$(dirname "$GOYCSB")/go-ycsb.version" 2>/dev/null); Java YCSB $(cat "$(dirname "$JAVA_HOME_DIR")/ycsb-java.version" 2>/dev/null); $(java -version 2>&1 | head -1)"
[ -z "${PGURL:-}" ] || log "PostgreSQL: $(redact "$PGURL") (database $PGDB)"
has_engine ferretdb && log "FerretDB: $(redact "$FERRETDB")"
first=${WORKLOADS%% *}
for e in $ENGINES; do
    n=$(records "$e")
    for t in $TOOLS; do
        f=$OUT/$e-$t-load.txt
        tool_load "$e" "$t" "$first" "$n" "$f" || { broken "$e" "$t" "its load failed" "$f"; continue; }
        printf '%s: %s loaded %s records\n' "$e" "$t" "$n"
    done
done

# --- runs ---------------------------------------------------------------------
# run_tool ENGINE TOOL WORKLOAD REP — one run; appends a CSV row or marks the tool broken
run_tool() {
    local e=$1 t=$2 w=$3 r=$4 n m f out thr ops cpu
    n=$(records "$e"); m=$(opcount "$e")
    f=$OUT/$e-$w-$t-$r.txt
    case $t in
    fairbench)
        # shellcheck disable=SC2046
        out=$( { TIMEFORMAT='CPU %U %S'; time "$FB" run --target "$(fb_target "$e")" --workload ycsb --preset "$w" -p recordcount="$n" $(fb_table "$e") \
            -p operationcount="$m" --threads "$THREADS" --duration "${DURATION}s" --warmup 0 --results "$OUT/fairbench-results.db" >"$f" 2>&1; } 2>&1) ;;
    go-ycsb)
        out=$( { TIMEFORMAT='CPU %U %S'; time goycsb "$e" run "$w" -p recordcount="$n" -p operationcount="$m" -p threadcount="$THREADS" >"$f" 2>&1; } 2>&1) ;;
    java)
        out=$( { TIMEFORMAT='CPU %U %S'; time java_ycsb "$e" run "$w" -p recordcount="$n" -p operationcount="$m" -threads "$THREADS" >"$f" 2>&1; } 2>&1) ;;
    esac || { broken "$e" "$t" "its run of workload $w failed" "$f"; return; }
    cpu=$(awk '/^CPU / {print $2 + $3}' <<<"$out")
    case $t in
    go-ycsb)
        # the final TOTAL line (after "Run finished"): Count and OPS
        read -r ops thr < <(sed -n '/^Run finished/,$ s/^TOTAL *- Takes(s): [0-9.]*, Count: \([0-9]*\), OPS: \([0-9.]*\),.*/\1 \2/p' "$f" | tail -1) || true ;;
    *)
        thr=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9.eE+-]*\)$/\1/p' "$f" | tail -1)
        ops=$(awk -F', ' -v thr="$thr" '$1 == "[OVERALL]" && $2 == "RunTime(ms)" {printf "%.0f", thr * $3 / 1000}' "$f") ;;
    esac
    if [ -z "${thr:-}" ] || [ -z "${ops:-}" ] || [ -z "$cpu" ]; then
        broken "$e" "$t" "no throughput in its output of workload $w" "$f"
        return
    fi
    echo "$e $w,$t,$r,$thr,$cpu,$ops" >>"$CSV"
    printf '.'
}

for e in $ENGINES; do
    for w in $WORKLOADS; do
        printf '%s workload %s ' "$e" "$w"
        for r in $(seq 1 "$REPS"); do
            for t in $(rotation "$r"); do
                [ -z "${BROKEN[$e/$t]:-}" ] || continue
                run_tool "$e" "$t" "$w" "$r"
            done
        done
        echo
    done
done
[ -s "$CSV" ] || die "no run succeeded"

summarise
