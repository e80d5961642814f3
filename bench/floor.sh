#!/usr/bin/env bash
# bench/floor.sh — how fast can a client be in pgbench's select-only cell? Rounds
# of four clients against the same PostgreSQL, 8 clients on 2 threads by default:
#   pgbench     pgbench -n -S -M prepared -c CLIENTS -j THREADS
#   fairbench   fairbench run --workload tpcb --mode select-only (same flags)
#   cfloor      bench/floor/cfloor.c: fairbench's loop, in C (needs gcc, libpq-dev)
#   gofloor     bench/floor/gofloor: the same loop, in Go, nothing else
# The order rotates each round; each tool's own TPS is used (the server's
# xact_commit comes in once-a-second chunks per backend, bench/README.md). It
# prints each tool's paired ratio to pgbench, and gofloor's to cfloor: what a
# Go client costs on this machine, apart from anything fairbench does.
#
#   bench/floor.sh                 # local test server, scale-10 pgbench tables
#   PGURL=postgres://u:p@host/db ROUNDS=24 bench/floor.sh
#
# Environment: PGURL [local test server], ROUNDS [16], DURATION seconds [5],
# CLIENTS [8], THREADS [2]. The database must hold pgbench's tables at scale 10
# (bench/pgbench.sh leaves them; else pgbench -i -s 10). Rows go to
# bench/out/floor-<stamp>.csv.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=${ROUNDS:-16}; DURATION=${DURATION:-5}; CLIENTS=${CLIENTS:-8}; THREADS=${THREADS:-2}
require_positive ROUNDS DURATION CLIENTS THREADS
[ $((CLIENTS % THREADS)) -eq 0 ] || die "CLIENTS ($CLIENTS) must be a multiple of THREADS ($THREADS)"
if [ -z "${PGURL:-}" ]; then
    start_test_servers
    PGURL=$(test_env FAIRBENCH_TEST_PG)
fi
command -v pgbench >/dev/null || die "pgbench missing (Debian: apt-get install postgresql-contrib)"
[ -f /usr/include/postgresql/libpq-fe.h ] || die "libpq's headers missing (Debian: apt-get install libpq-dev)"
accounts=$(psql "$PGURL" -XAtq -c 'select count(*) from pgbench_accounts' 2>/dev/null) ||
    die "no pgbench_accounts in the target: run pgbench -i -s 10 first"
[ "$accounts" = 1000000 ] || die "pgbench_accounts holds $accounts rows; the floor clients need scale 10 (1000000)"

bash scripts/build.sh || die "scripts/build.sh failed"
BIN=$ROOT/bench/out/floor-bin
mkdir -p "$BIN"
gcc -O2 -pthread -I/usr/include/postgresql -o "$BIN/cfloor" bench/floor/cfloor.c -lpq || die "building cfloor failed"
CGO_ENABLED=0 go build -o "$BIN/gofloor" ./bench/floor/gofloor || die "building gofloor failed"

CSV=$ROOT/bench/out/floor-$(date -u +%Y%m%d-%H%M%S).csv
TOOLS=(pgbench fairbench cfloor gofloor)
run() {
    case $1 in
    pgbench) pgbench "$PGURL" -n -S -M prepared -c "$CLIENTS" -j "$THREADS" -T "$DURATION" ;;
    fairbench) "$ROOT/fairbench" run --results "$BIN/fairbench.db" --target "$PGURL" --workload tpcb --mode select-only \
        --scale 10 -n -M prepared -c "$CLIENTS" -j "$THREADS" -T "${DURATION}s" ;;
    *) "$BIN/$1" "$PGURL" "$CLIENTS" "$THREADS" "$DURATION" ;;
    esac 2>/dev/null | awk '/^tps/ {print ($2 == "=") ? $3 : $2}'
}
printf 'floor.sh: %d rounds of %s, %d s each, %d clients on %d threads\n' "$ROUNDS" "${TOOLS[*]}" "$DURATION" "$CLIENTS" "$THREADS"
for r in $(seq 1 "$ROUNDS"); do
    for j in 0 1 2 3; do
        tool=${TOOLS[$(((r + j) % 4))]}
        tps=$(run "$tool") || true
        [ -n "$tps" ] || die "$tool printed no tps in round $r"
        echo "select-only,$tool,$r,$tps" >>"$CSV"
    done
    printf '.'
done
echo
ratio() { awk -F, -v ref="$1" -v new="$2" -f bench/ratio.awk "$CSV" | awk -F, -v t="$2/$1" '{printf "%-20s %s pairs  %s [%s, %s]\n", t, $2, $3, $4, $5}'; }
for t in fairbench cfloor gofloor; do ratio pgbench "$t"; done
ratio cfloor gofloor
ratio gofloor fairbench
echo "rows: $CSV"
