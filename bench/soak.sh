#!/usr/bin/env bash
# bench/soak.sh — a long run that checks fairbench itself stays flat: resident
# memory and open file descriptors of the fairbench process sampled every
# SAMPLE seconds, and the per-second throughput it reports, over DURATION.
# Not part of the tests (it takes half an hour by default).
#
#   bash bench/soak.sh                                   # 30 min, embedded SQLite
#   bash bench/soak.sh 14400                             # 4 hours (the first argument is DURATION)
#   DURATION=120 bash bench/soak.sh                      # a quick check of the script
#   TARGET=postgres://bench@127.0.0.1/bench CLIENTS=8 bash bench/soak.sh
#   RATE=1000 bash bench/soak.sh 9000                    # 2.5 hours at a fixed 1000 tps (rate mode)
#
# Environment knobs (defaults in brackets):
#   DURATION [1800] seconds measured     SAMPLE [10] seconds between samples
#   TARGET [sqlite in the output dir]    MODE [select-only] (tpcb)   CLIENTS [4]
#   OUT_DIR [bench/out]     RATE [none: as fast as it goes] tps over all clients (-R), which keeps
#   the soak's CPU small on a shared machine and its throughput trend independent of other load
#
# Printed first, without a verdict: the median RSS of the first and of the last quarter of
# the samples and their ratio (last / first), and the peak RSS.
# Verdicts (each printed as ok or FAIL; the script exits 1 on any FAIL):
#   memory: median RSS of the last fifth no more than 10 % above the median of the second fifth
#           (the first fifth is start-up and caches filling). One-sided: a leak grows; a fall
#           is the Go runtime returning memory to the system, printed but not a failure;
#   fds:    the largest fd count of the last fifth not above that of the second fifth;
#   trend:  least-squares slope of the per-second tps over the run, as a change over the whole
#           run, within ±10 % of the mean tps.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION=${1:-${DURATION:-1800}}; SAMPLE=${SAMPLE:-10}; CLIENTS=${CLIENTS:-4}; MODE=${MODE:-select-only}
OUT_DIR=${OUT_DIR:-bench/out}
require_positive DURATION SAMPLE CLIENTS
RATE_FLAGS=()
if [ -n "${RATE:-}" ]; then require_positive RATE; RATE_FLAGS=(-R "$RATE"); fi
[ "$DURATION" -ge $((5 * SAMPLE)) ] || die "DURATION must be at least 5 samples ($((5 * SAMPLE)) s)"

RUN_DIR="$OUT_DIR/soak-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$RUN_DIR"
TARGET=${TARGET:-sqlite:$RUN_DIR/soak.db?journal_mode=WAL&synchronous=NORMAL}
FB="$RUN_DIR/fairbench"
CGO_ENABLED=0 go build -trimpath -o "$FB" ./cmd/fairbench || die "go build failed"

echo "soak: $DURATION s, $CLIENTS clients${RATE:+ at $RATE tps}, tpcb $MODE on $(redact "$TARGET"), sampled every $SAMPLE s -> $RUN_DIR"
"$FB" run --results "$RUN_DIR/results.db" --target "$TARGET" --workload tpcb --mode "$MODE" \
    -c "$CLIENTS" -T "${DURATION}s" -P 1 "${RATE_FLAGS[@]}" >"$RUN_DIR/run.log" 2>&1 &
pid=$!
echo "t_s,rss_kib,fds" >"$RUN_DIR/samples.csv"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    [ -n "$rss" ] && echo "$(($(date +%s) - start)),$rss,$fds" >>"$RUN_DIR/samples.csv"
    sleep "$SAMPLE"
done
wait "$pid" || die "fairbench run failed: see $RUN_DIR/run.log"

# Per-second tps from the progress lines ("  progress: 12.0 s, 1234.5 tps, …").
awk '/^  progress: / {print $2 "," $4}' "$RUN_DIR/run.log" >"$RUN_DIR/tps.csv"

awk -F, -v dur="$DURATION" '
function median(a, n,   i, j, t) {   # a[1..n], sorted in place
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
FNR == 1 { file++ }
file == 1 && FNR > 1 { t[++n] = $1; rss[n] = $2; fd[n] = $3 }
file == 2 { x = $1 + 0; y = $2 + 0; m++; sx += x; sy += y; sxx += x * x; sxy += x * y }
END {
    fifth = int(n / 5); if (fifth < 1) { print "too few samples"; exit 1 }
    quarter = int(n / 4); peak = 0
    for (i = 1; i <= quarter; i++) { q1[i] = rss[i]; q4[i] = rss[n - quarter + i] }
    for (i = 1; i <= n; i++) if (rss[i] > peak) peak = rss[i]
    first = median(q1, quarter); last = median(q4, quarter)
    printf "rss:    median %.1f MiB (first quarter) -> %.1f MiB (last quarter), ratio %.3f; peak %.1f MiB over %d samples\n", first/1024, last/1024, last/first, peak/1024, n
    for (i = 1; i <= fifth; i++) { a[i] = rss[fifth + i]; b[i] = rss[n - fifth + i] }
    early = median(a, fifth); late = median(b, fifth)
    fdEarly = 0; fdLate = 0
    for (i = fifth + 1; i <= 2 * fifth; i++) if (fd[i] > fdEarly) fdEarly = fd[i]
    for (i = n - fifth + 1; i <= n; i++) if (fd[i] > fdLate) fdLate = fd[i]
    bad = 0
    memOK = late <= early * 1.10
    printf "memory: median RSS %.1f MiB (second fifth) -> %.1f MiB (last fifth), %+.1f %% (limit +10 %%): %s\n", early/1024, late/1024, (late/early - 1) * 100, memOK ? "ok" : "FAIL"
    fdOK = fdLate <= fdEarly
    printf "fds:    max %d (second fifth) -> %d (last fifth): %s\n", fdEarly, fdLate, fdOK ? "ok" : "FAIL"
    if (m < 3) { print "trend:  too few progress lines: FAIL"; exit 1 }
    slope = (m * sxy - sx * sy) / (m * sxx - sx * sx); mean = sy / m
    change = slope * dur / mean * 100
    trendOK = change <= 10 && change >= -10
    printf "trend:  mean %.1f tps over %d s, least-squares change over the run %+.1f %%: %s\n", mean, m, change, trendOK ? "ok" : "FAIL"
    exit (memOK && fdOK && trendOK) ? 0 : 1
}' "$RUN_DIR/samples.csv" "$RUN_DIR/tps.csv" | tee "$RUN_DIR/verdict.txt"
status=${PIPESTATUS[0]}
echo "samples: $RUN_DIR/samples.csv, tps: $RUN_DIR/tps.csv"
exit "$status"
