#!/usr/bin/env bash
# bench/kv.sh — fairbench's kv workload against memtier_benchmark 2.3.0 and
# redis-benchmark on the same Redis and the same Valkey, in one run.
#
#   bench/kv.sh                          # local test servers (scripts/test-servers.sh)
#   DURATION=5 REPS=2 bench/kv.sh        # short run
#
# Cells: server (Redis 7, Valkey 9.1) × command (GET, SET) × pipeline (1, 16)
# at CONNS connections on THREADS threads (memtier -c CONNS/THREADS -t
# THREADS, fairbench the same flags, redis-benchmark -c CONNS --threads
# THREADS). The key range (KEYS keys of 32 bytes, memtier's default size) is
# written once with `fairbench load --workload kv`, so GETs hit; redis-benchmark
# names its keys key:%012d (-r), so the same range under those names is written
# too (redis-cli --pipe), with values of the same 32 bytes (-d 32): its GETs
# hit as well (a miss, a 5-byte nil reply, costs the server less); those key:…
# are deleted at the end (a study's redis-benchmark cell refuses a database
# holding them). Per cell, REPS
# repetitions, the tools' order rotating; each tool's own Totals ops/sec and
# its CPU seconds (user+sys, bash's `time`, start-up included) are captured.
# Printed per cell: median ops/s per tool, and the paired ratios
# fairbench/memtier of ops/s and of client CPU per operation (geometric mean
# and 95 % interval, bench/ratio.awk), and fairbench/redis-benchmark of ops/s.
# Rows in bench/out/kv-<stamp>.csv.
#
# Environment (defaults in brackets): DURATION [10] s, REPS [3], CONNS [50],
# THREADS [2], KEYS [100000], PIPELINES ["1 16"], COMMANDS ["get set"],
# SERVERS ["redis valkey"], TOOLS ["memtier fairbench redis-benchmark"] (a
# ratio against a tool left out is printed empty), FB_CLIENT [wire]: go-redis
# measures the library path. REDIS_URL, VALKEY_URL: servers already up (then
# scripts/test-servers.sh is not run; redis://host:port/db, no password).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-10}; REPS=${REPS:-3}; CONNS=${CONNS:-50}; THREADS=${THREADS:-2}; KEYS=${KEYS:-100000}
PIPELINES=${PIPELINES:-1 16}; COMMANDS=${COMMANDS:-get set}; SERVERS=${SERVERS:-redis valkey}
read -r -a TOOLS <<<"${TOOLS:-memtier fairbench redis-benchmark}"; FB_CLIENT=${FB_CLIENT:-wire}
require_positive DURATION REPS CONNS THREADS KEYS
[ $((CONNS % THREADS)) -eq 0 ] || die "CONNS ($CONNS) must be a multiple of THREADS ($THREADS)"
# The servers' URLs: REDIS_URL and VALKEY_URL when given (nothing is started
# then), else the test servers' (scripts/test-servers.sh).
for s in $SERVERS; do
    case $s in
    redis) [ -n "${REDIS_URL:-}" ] || { start_test_servers; REDIS_URL=$(test_env FAIRBENCH_TEST_REDIS); } ;;
    valkey) [ -n "${VALKEY_URL:-}" ] || { start_test_servers; VALKEY_URL=$(test_env FAIRBENCH_TEST_VALKEY); } ;;
    *) die "SERVERS: unknown server '$s' (redis, valkey)" ;;
    esac
done
for t in "${TOOLS[@]}"; do
    case $t in memtier | fairbench | redis-benchmark) ;; *) die "TOOLS: unknown tool '$t' (memtier, fairbench, redis-benchmark)" ;; esac
done
if [[ " ${TOOLS[*]} " == *" memtier "* ]]; then
    MEMTIER=${MEMTIER:-$(bash scripts/install-memtier.sh "$ROOT/.bin")} || die "memtier_benchmark could not be built"
fi
if [[ " ${TOOLS[*]} " == *" redis-benchmark "* ]]; then
    command -v redis-benchmark >/dev/null || die "redis-benchmark missing (Debian: apt-get install redis-tools)"
fi
bash scripts/build.sh >/dev/null || die "scripts/build.sh failed"
mkdir -p bench/out
STAMP=$(date -u +%Y%m%d-%H%M%S)
CSV=$ROOT/bench/out/kv-$STAMP.csv
DB=$ROOT/bench/out/kv-$STAMP.db
PER=$((CONNS / THREADS))
VALUE_SIZE=32 # memtier's default data size, which fairbench's kv shares

# host_port URL → "host port"
host_port() { local hp=${1#*://}; hp=${hp%%/*}; hp=${hp##*@}; echo "${hp%:*} ${hp##*:}"; }

# prefill_redis_benchmark URL — keys key:000000000000 … of redis-benchmark -r KEYS,
# each VALUE_SIZE bytes of 'x' as fairbench's values, so that its GETs hit too.
prefill_redis_benchmark() {
    awk -v n="$KEYS" -v size="$VALUE_SIZE" 'BEGIN {
        v = sprintf("%*s", size, ""); gsub(/ /, "x", v)
        for (i = 0; i < n; i++) {
            k = sprintf("key:%012d", i)
            printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v
        }
    }' | redis-cli -u "$1" --pipe | grep -q 'errors: 0,'
}

# drop_redis_benchmark_keys URL — deletes redis-benchmark's key:… (the prefill's
# and its SETs'): a redis-benchmark cell of a study refuses a database holding
# keys of its names, and these servers are the test suite's.
drop_redis_benchmark_keys() {
    redis-cli -u "$1" --scan --pattern 'key:*' | xargs -r -n 1000 redis-cli -u "$1" unlink >/dev/null
}
drop_all_redis_benchmark_keys() {
    local s
    for s in $SERVERS; do drop_redis_benchmark_keys "$(url_of "$s")" || echo "kv.sh: could not delete key:* on $s" >&2; done
}

url_of() { case $1 in redis) echo "$REDIS_URL" ;; valkey) echo "$VALKEY_URL" ;; esac; }
ratio_of() { case $1 in get) echo 0:1 ;; set) echo 1:0 ;; esac; }

# run TOOL URL CMD PIPELINE → "ops/s cpu-seconds"
run() {
    local tool=$1 url=$2 cmd=$3 pipe=$4 host port out
    read -r host port < <(host_port "$url")
    out=$( { TIMEFORMAT='%U %S'; time {
        case $tool in
        memtier) "$MEMTIER" -s "$host" -p "$port" --protocol=redis -c "$PER" -t "$THREADS" --ratio="$(ratio_of "$cmd")" \
            --pipeline="$pipe" --key-maximum=$((KEYS - 1)) --key-pattern=R:R --distinct-client-seed \
            --test-time="$DURATION" --hide-histogram 2>/dev/null | awk '/^Totals/ {print $2}' ;;
        fairbench) "$ROOT/fairbench" run --results "$DB" --target "$url?client=$FB_CLIENT" --workload kv \
            --ratio "$(ratio_of "$cmd")" --pipeline "$pipe" -c "$PER" -t "$THREADS" --key-maximum $((KEYS - 1)) \
            --test-time "${DURATION}s" --warmup 0s 2>/dev/null | awk '/^Totals/ {print $2}' ;;
        redis-benchmark) redis-benchmark -h "$host" -p "$port" -c "$CONNS" --threads "$THREADS" -P "$pipe" \
            -r "$KEYS" -d "$VALUE_SIZE" -t "$cmd" -n $((DURATION * 40000 * pipe)) --csv 2>/dev/null | awk -F'"' 'NR > 1 {print $4}' ;;
        esac
    }; } 2>&1)
    # the ops/s line, then bash's "user sys" line
    awk 'NR == 1 {ops = $1} NR == 2 {cpu = $1 + $2} END {print ops, cpu}' <<<"$out"
}

for s in $SERVERS; do
    "$ROOT/fairbench" load --target "$(url_of "$s")" --workload kv --key-maximum $((KEYS - 1)) >/dev/null 2>&1 \
        || die "prefilling $s failed"
    if [[ " ${TOOLS[*]} " == *" redis-benchmark "* ]]; then
        trap drop_all_redis_benchmark_keys EXIT
        prefill_redis_benchmark "$(url_of "$s")" || die "prefilling $s for redis-benchmark (redis-cli --pipe) failed"
    fi
done
printf 'kv.sh: %s × %s × pipelines %s, %d connections on %d threads, %d s × %d reps\n' \
    "$SERVERS" "$COMMANDS" "$PIPELINES" "$CONNS" "$THREADS" "$DURATION" "$REPS"
for s in $SERVERS; do
    url=$(url_of "$s")
    for c in $COMMANDS; do
        for p in $PIPELINES; do
            key="$s $c P$p"
            for r in $(seq 1 "$REPS"); do
                for j in "${!TOOLS[@]}"; do
                    tool=${TOOLS[$(((r + j) % ${#TOOLS[@]}))]}
                    read -r ops cpu < <(run "$tool" "$url" "$c" "$p")
                    [ -n "$ops" ] || die "$tool printed no ops/s ($key, rep $r)"
                    echo "$key,$tool,$r,$ops,$cpu" >>"$CSV"
                done
                printf '.'
            done
        done
    done
done
echo
# CPU per operation: cpu / (ops/s × duration)
awk -F, -v d="$DURATION" '{print $1 "," $2 "," $3 "," ($4 > 0 ? $5 / ($4 * d) * 1e6 : "")}' "$CSV" >"$CSV.cpu"
printf '%-16s %12s %12s %12s   %-26s %-26s %-26s\n' cell memtier fairbench redis-bench "ops/s fb/memtier [95% CI]" "CPU/op fb/memtier" "ops/s fb/redis-bench"
for key in $(cut -d, -f1 "$CSV" | sort -u | tr ' ' '_'); do
    k=${key//_/ }
    med() { grep "^$k,$1," "$CSV" | cut -d, -f4 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    r1=$(grep "^$k," "$CSV" | awk -F, -v ref=memtier -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    r2=$(grep "^$k," "$CSV.cpu" | awk -F, -v ref=memtier -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    r3=$(grep "^$k," "$CSV" | awk -F, -v ref=redis-benchmark -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    printf '%-16s %12s %12s %12s   %-26s %-26s %-26s\n' "$k" "$(med memtier)" "$(med fairbench)" "$(med redis-benchmark)" "$r1" "$r2" "$r3"
done
echo "rows: $CSV"
