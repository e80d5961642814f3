#!/usr/bin/env bash
# bench/kv.sh — fairbench's kv workload against memtier_benchmark 2.3.0 and
# redis-benchmark on the same Redis and the same Valkey, in one run.
#
#   bench/kv.sh                          # local test servers (scripts/test-servers.sh)
#   DURATION=5 REPS=2 bench/kv.sh        # short run
#
# Two kinds of cell, each a pair of tools measuring the same pipeline:
#   window: memtier_benchmark --pipeline P against fairbench's kv with
#     --pipeline P (its default --pipeline-mode window: up to P requests
#     outstanding per connection, refilled after every read), P in PIPELINES;
#   batch: redis-benchmark -P P against fairbench's kv with --pipeline-mode
#     batch (P requests sent together, all replies awaited), P in
#     BATCH_PIPELINES.
# Each for server (Redis 7, Valkey 9.1) × command (GET, SET), at CONNS
# connections on THREADS threads (memtier -c CONNS/THREADS -t THREADS,
# fairbench the same flags, redis-benchmark -c CONNS --threads THREADS), values
# of DATA_SIZE bytes. The key range (KEYS keys of DATA_SIZE bytes) is
# written once with `fairbench load --workload kv`, so GETs hit; redis-benchmark
# names its keys key:%012d (-r), so the same range under those names is written
# too (redis-cli --pipe), with values of the same 32 bytes (-d 32): its GETs
# hit as well (a miss, a 5-byte nil reply, costs the server less); those key:…
# are deleted at the end (a study's redis-benchmark cell refuses a database
# holding them). Per cell, REPS
# repetitions of the pair, the order alternating; each tool's own Totals
# ops/sec and its CPU seconds (user+sys, bash's `time`, start-up included) are
# captured. Printed per cell: the median ops/s of the peer and of fairbench,
# and the paired ratios fairbench/peer of ops/s and of client CPU per
# operation (geometric mean and 95 % interval, bench/ratio.awk). Rows in
# bench/out/kv-<stamp>.csv.
#
# Environment (defaults in brackets): DURATION [10] s, REPS [3], CONNS [50],
# THREADS [2], KEYS [100000], DATA_SIZE [1024], PIPELINES ["1 16 32"],
# BATCH_PIPELINES ["16"] (either may be empty), COMMANDS ["get set"], SERVERS
# ["redis valkey"], FB_CLIENT [wire]: go-redis measures the library path (whose
# sessions keep no window: its window cells run as batches, and say so).
# REDIS_URL, VALKEY_URL: servers already up (then scripts/test-servers.sh is
# not run; redis://host:port/db, no password).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-10}; REPS=${REPS:-3}; CONNS=${CONNS:-50}; THREADS=${THREADS:-2}; KEYS=${KEYS:-100000}
PIPELINES=${PIPELINES-1 16 32}; BATCH_PIPELINES=${BATCH_PIPELINES-16}; COMMANDS=${COMMANDS:-get set}
SERVERS=${SERVERS:-redis valkey}; FB_CLIENT=${FB_CLIENT:-wire}; DATA_SIZE=${DATA_SIZE:-1024}
require_positive DURATION REPS CONNS THREADS KEYS DATA_SIZE
for p in $PIPELINES $BATCH_PIPELINES; do is_positive "$p" || die "PIPELINES and BATCH_PIPELINES hold whole numbers > 0 (got '$p')"; done
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
if [ -n "$PIPELINES" ]; then
    MEMTIER=${MEMTIER:-$(bash scripts/install-memtier.sh "$ROOT/.bin")} || die "memtier_benchmark could not be built"
fi
if [ -n "$BATCH_PIPELINES" ]; then
    command -v redis-benchmark >/dev/null || die "redis-benchmark missing (Debian: apt-get install redis-tools)"
fi
bash scripts/build.sh >/dev/null || die "scripts/build.sh failed"
mkdir -p bench/out
STAMP=$(date -u +%Y%m%d-%H%M%S)
CSV=$ROOT/bench/out/kv-$STAMP.csv
DB=$ROOT/bench/out/kv-$STAMP.db
PER=$((CONNS / THREADS))
VALUE_SIZE=$DATA_SIZE

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

# run TOOL URL CMD PIPELINE → "ops/s cpu-seconds operations"; TOOL is memtier,
# fairbench (its window), fairbench-batch or redis-benchmark. The operations
# are ops/s × DURATION for the tools that run DURATION seconds, and
# redis-benchmark's fixed count (-n), which takes it longer or shorter.
run() {
    local tool=$1 url=$2 cmd=$3 pipe=$4 host port out n=$((DURATION * 40000 * $4))
    read -r host port < <(host_port "$url")
    out=$( { TIMEFORMAT='%U %S'; time {
        case $tool in
        memtier) "$MEMTIER" -s "$host" -p "$port" --protocol=redis -c "$PER" -t "$THREADS" --ratio="$(ratio_of "$cmd")" \
            --pipeline="$pipe" --key-maximum=$((KEYS - 1)) --key-pattern=R:R --distinct-client-seed \
            -d "$VALUE_SIZE" --test-time="$DURATION" --hide-histogram 2>/dev/null | awk '/^Totals/ {print $2}' ;;
        fairbench | fairbench-batch) "$ROOT/fairbench" run --results "$DB" --target "$url?client=$FB_CLIENT" --workload kv \
            --ratio "$(ratio_of "$cmd")" --pipeline "$pipe" --pipeline-mode "$([ "$tool" = fairbench ] && echo window || echo batch)" \
            -c "$PER" -t "$THREADS" --key-maximum $((KEYS - 1)) -d "$VALUE_SIZE" \
            --test-time "${DURATION}s" --warmup 0s 2>/dev/null | awk '/^Totals/ {print $2}' ;;
        redis-benchmark) redis-benchmark -h "$host" -p "$port" -c "$CONNS" --threads "$THREADS" -P "$pipe" \
            -r "$KEYS" -d "$VALUE_SIZE" -t "$cmd" -n "$n" --csv 2>/dev/null | awk -F'"' 'NR > 1 {print $4}' ;;
        esac
    }; } 2>&1)
    # the ops/s line, then bash's "user sys" line
    [ "$tool" = redis-benchmark ] || n=
    awk -v n="$n" -v d="$DURATION" 'NR == 1 {ops = $1} NR == 2 {cpu = $1 + $2} END {print ops, cpu, (n != "" ? n : ops * d)}' <<<"$out"
}

for s in $SERVERS; do
    "$ROOT/fairbench" load --target "$(url_of "$s")" --workload kv --key-maximum $((KEYS - 1)) \
        --data-size "$VALUE_SIZE" >/dev/null 2>&1 || die "prefilling $s failed"
    if [ -n "$BATCH_PIPELINES" ]; then
        trap drop_all_redis_benchmark_keys EXIT
        prefill_redis_benchmark "$(url_of "$s")" || die "prefilling $s for redis-benchmark (redis-cli --pipe) failed"
    fi
done
printf 'kv.sh: %s × %s, window pipelines [%s] (memtier), batch pipelines [%s] (redis-benchmark), %d connections on %d threads, %d-byte values, %d s × %d reps\n' \
    "$SERVERS" "$COMMANDS" "$PIPELINES" "$BATCH_PIPELINES" "$CONNS" "$THREADS" "$VALUE_SIZE" "$DURATION" "$REPS"
# pair KEY PEER URL CMD PIPELINE — REPS interleaved pairs of PEER and fairbench's
# same-semantics mode, the order alternating.
pair() {
    local key=$1 peer=$2 url=$3 cmd=$4 p=$5 fb=fairbench r tool ops cpu
    [ "$peer" = redis-benchmark ] && fb=fairbench-batch
    for r in $(seq 1 "$REPS"); do
        for tool in $([ $((r % 2)) -eq 1 ] && echo "$peer $fb" || echo "$fb $peer"); do
            read -r ops cpu n < <(run "$tool" "$url" "$cmd" "$p")
            [ -n "$ops" ] || die "$tool printed no ops/s ($key, rep $r)"
            # both of a pair under one name, so ratio.awk pairs them
            echo "$key,${tool/fairbench-batch/fairbench},$r,$ops,$cpu,$n" >>"$CSV"
        done
        printf '.'
    done
}
for s in $SERVERS; do
    url=$(url_of "$s")
    for c in $COMMANDS; do
        for p in $PIPELINES; do pair "$s $c P$p window/memtier" memtier "$url" "$c" "$p"; done
        for p in $BATCH_PIPELINES; do pair "$s $c P$p batch/redis-benchmark" redis-benchmark "$url" "$c" "$p"; done
    done
done
echo
# CPU per operation (µs): cpu / operations
awk -F, '{print $1 "," $2 "," $3 "," ($6 > 0 ? $5 / $6 * 1e6 : "")}' "$CSV" >"$CSV.cpu"
printf '%-34s %12s %12s   %-26s %-26s\n' cell peer fairbench "ops/s fb/peer [95% CI]" "CPU/op fb/peer [95% CI]"
while IFS= read -r k; do
    peer=${k##*/}
    med() { grep "^$k,$1," "$CSV" | cut -d, -f4 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    r1=$(grep "^$k," "$CSV" | awk -F, -v ref="$peer" -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    r2=$(grep "^$k," "$CSV.cpu" | awk -F, -v ref="$peer" -v new=fairbench -f bench/ratio.awk | cut -d, -f3-5)
    printf '%-34s %12s %12s   %-26s %-26s\n' "$k" "$(med "$peer")" "$(med fairbench)" "$r1" "$r2"
done < <(cut -d, -f1 "$CSV" | awk '!seen[$0]++')
echo "rows: $CSV"
