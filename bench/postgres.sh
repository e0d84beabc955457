#!/usr/bin/env bash
# Benchmark, not a test: the document API of a kura node on the PostgreSQL engine against one on the SQLite engine,
# in one run on one machine (docs/scaling.md, "bench/postgres.sh"). The work is bench/docs.sh's:
#  1. GET of a 1 KB document (admin key), served from each node's document cache        -> get_ratio
#  2. durable creates (POST /api/docs/bench_creates, 201)                                 -> create_ratio
#  3. DOCS documents loaded into `items` with /api/commit (500 writes per commit), then `status == S orderBy rank
#     desc limit 20` many times; the server time per query from each node's access log  -> query_p50_ratio
# Ratios are PostgreSQL over SQLite: above 1 the PostgreSQL node serves more requests per second (1, 2); for query
# times (3) above 1 means PostgreSQL's queries take longer. wrk measures 1 and 2 like bench/docs.sh (warm-up, then
# rounds rotating which node goes first, medians). The PostgreSQL server is this run's own
# (Tests/Support/postgres_server.sh: loopback TCP, fsync on), so its commits pay a WAL flush as in production.
# The last line sums up: `postgres_summary get_ratio=… create_ratio=… query_p50_ratio=… …`.
#
# Usage: bench/postgres.sh   (needs what `make bench` installs, python3 and Debian's postgresql)
#        DOCS=20000 ROUNDS=1 DURATION=5 bench/postgres.sh   (a quick try)
#        STEPS="get create" bench/postgres.sh   (STEPS lists any of get, create, query; default all)
# Environment: ROUNDS=5 DURATION=10 CONNECTIONS=64 THREADS=2 BUILD_DIR=.build KURA_ARGS (flags for both nodes);
#              DOCS=200000 LOADERS=4 QUERIES=2000 QUERY_CLIENTS=2 (step 3); PG_POOL=16 (the PostgreSQL node's
#              store.poolSize); PG_BIN (PostgreSQL's binaries); KEEP_LOGS=/some/dir copies both nodes' logs, the
#              PostgreSQL server's log and wrk's reports there on exit.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
DOCS=${DOCS:-200000}
LOADERS=${LOADERS:-4}
QUERIES=${QUERIES:-2000}
QUERY_CLIENTS=${QUERY_CLIENTS:-2}
PG_POOL=${PG_POOL:-16}
KEEP_LOGS=${KEEP_LOGS:-}
STEPS=${STEPS:-get create query}
WARMUP=2
QUERY_WARMUP=200

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl
command -v python3 >/dev/null || { echo "$BENCH: python3 not found" >&2; exit 1; }

build_kura
make_bench_dir
{ read -r pg_url; read -r pg_dir; } < <(Tests/Support/postgres_server.sh start --owner-pid $$)
[ -n "$pg_dir" ] || { echo "$BENCH: PostgreSQL did not start" >&2; exit 1; }
finish() {
    if [ -n "$KEEP_LOGS" ] && [ -d "$dir" ]; then
        mkdir -p "$KEEP_LOGS"
        cp "$dir"/*.log "$dir"/wrk-*.txt "$KEEP_LOGS"/ 2>/dev/null || true
        cp "$pg_dir/server.log" "$KEEP_LOGS/postgres-server.log" 2>/dev/null || true
    fi
    cleanup
    Tests/Support/postgres_server.sh stop "$pg_dir" || true
}
trap finish EXIT

sqlite_port=$(free_port)
postgres_port=$(free_port_except "$sqlite_port")
base_sqlite=http://127.0.0.1:$sqlite_port
base_postgres=http://127.0.0.1:$postgres_port
pg_args="--set store.engine=postgres --set store.url=$pg_url --set store.poolSize=$PG_POOL"

# Starts node $1 (sqlite or postgres) on its port with its own data directory; sets key_$1.
start_node() {
    local side=$1 port_var=${1}_port saved=$KURA_ARGS
    [ "$side" = postgres ] && KURA_ARGS="$KURA_ARGS $pg_args"
    start_kura "${!port_var}" "$dir/data-$side" "$dir/kura-$side.log"
    KURA_ARGS=$saved
    declare -g "key_$side=$(cat "$dir/data-$side/admin.key")"
}
start_node sqlite
start_node postgres

# Fails with the answer unless `curl …` ($3…) with node $1's admin key answers HTTP $2; prints the body otherwise.
expect() {
    local side=$1 want=$2 key out
    shift 2
    key=key_$side
    out=$(curl -sS -o "$dir/curl-body" -w '%{http_code}' -H "Authorization: Bearer ${!key}" "$@") || true
    if [ "$out" != "$want" ]; then
        echo "$BENCH: expected HTTP $want from the $side node for curl $*, got $out: $(head -c 500 "$dir/curl-body")" >&2
        exit 1
    fi
    cat "$dir/curl-body"
}

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS}: a node on SQLite against a node on" \
    "PostgreSQL $("${PG_BIN:-/usr/lib/postgresql/15/bin}/postgres" --version | awk '{print $3}') (store.poolSize" \
    "$PG_POOL), both logging every request"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "$(nproc) cores"
status=0
get_ratio=skipped create_ratio=skipped query_ratio=skipped
rps_get_sqlite=skipped rps_get_postgres=skipped rps_create_sqlite=skipped rps_create_postgres=skipped
p50_sqlite=skipped p50_postgres=skipped
steps=" $STEPS "

# --- 1. A cached 1 KB document --------------------------------------------------------------------------------
if [[ $steps == *" get "* ]]; then
    doc_path=bench/doc1k
    bio=$(printf 'Analyst and writer; notes on the Analytical Engine. %.0s' $(seq 14))
    for side in sqlite postgres; do
        base=base_$side
        expect "$side" 200 -X PUT "${!base}/api/docs/$doc_path" -H 'Content-Type: application/json' \
            --data-binary @- >/dev/null <<JSON
{"data":{"name":"Ada Lovelace","email":"ada@example.com","age":36,"active":true,"plan":"pro",
"tags":["math","engines","poetry"],"address":{"street":"12 St James's Square","city":"London","country":"GB"},
"scores":[98,87,91],"bio":"$bio"}}
JSON
        expect "$side" 200 "${!base}/api/docs/$doc_path" >"$dir/doc-$side.json"
    done
    echo "== GET /api/docs/$doc_path, a $(wc -c <"$dir/doc-sqlite.json")-byte body, admin key"
    wrk_sqlite=("$base_sqlite/api/docs/$doc_path" -H "Authorization: Bearer $key_sqlite")
    wrk_postgres=("$base_postgres/api/docs/$doc_path" -H "Authorization: Bearer $key_postgres")
    run_sides get- sqlite postgres
    echo "median  sqlite $rps_sqlite req/s  p99 $p99_sqlite ms  |  postgres $rps_postgres req/s  p99 $p99_postgres ms"
    sides_clean sqlite postgres || status=1
    rps_get_sqlite=$rps_sqlite rps_get_postgres=$rps_postgres
    get_ratio=$(ratio "$rps_postgres" "$rps_sqlite")
    echo "postgres_get_ratio=$get_ratio"
fi

# --- 2. Durable creates ---------------------------------------------------------------------------------------
if [[ $steps == *" create "* ]]; then
    echo "== POST /api/docs/bench_creates (bench/docs-create.lua's body, 201 each)"
    wrk_sqlite=("$base_sqlite/api/docs/bench_creates" -H "Authorization: Bearer $key_sqlite" -s bench/docs-create.lua)
    wrk_postgres=("$base_postgres/api/docs/bench_creates" -H "Authorization: Bearer $key_postgres"
        -s bench/docs-create.lua)
    run_sides create- sqlite postgres
    echo "median  sqlite $rps_sqlite creates/s  p99 $p99_sqlite ms  |  postgres $rps_postgres creates/s" \
        "p99 $p99_postgres ms"
    sides_clean sqlite postgres || status=1
    sleep 1.1 # kura flushes its access log about every second
    for side in sqlite postgres; do
        read -r creates created < <(awk '$4 == "/api/docs/bench_creates" && $3 == "POST" { n++; if ($5 == 201) ok++ }
            END { print n + 0, ok + 0 }' "$dir/kura-$side.log")
        echo "creates in the $side node's access log: $creates, of which 201: $created"
        if [ "$creates" -eq 0 ] || [ "$created" -ne "$creates" ]; then
            echo "WARNING: creates on $side: $((creates - created)) of $creates answers were not 201" >&2
            status=1
        fi
    done
    rps_create_sqlite=$rps_sqlite rps_create_postgres=$rps_postgres
    create_ratio=$(ratio "$rps_postgres" "$rps_sqlite")
    echo "postgres_create_ratio=$create_ratio"
fi

# --- 3. A query on a large collection -------------------------------------------------------------------------
# Nearest-rank percentiles of the times on stdin: prints "p50 p99".
percentiles() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan nan"; exit }
        i = int((NR * 50 + 99) / 100); j = int((NR * 99 + 99) / 100); printf "%.3f %.3f\n", v[i], v[j] }'
}
if [[ $steps == *" query "* ]]; then
    echo "== $DOCS documents into 'items' on each node (POST /api/commit, $LOADERS loaders), then $QUERIES queries" \
        "'status == S orderBy rank desc limit 20' from $QUERY_CLIENTS clients"
    for side in sqlite postgres; do
        base=base_$side key=key_$side
        echo "-- $side"
        python3 bench/docs.py load --url "${!base}" --key "${!key}" --docs "$DOCS" --loaders "$LOADERS" \
            | grep -v '^load_'
        query() {
            python3 bench/docs.py query --url "${!base}" --key "${!key}" --clients "$QUERY_CLIENTS" \
                --shape status --expect-at-least $((DOCS / 200)) "$@"
        }
        query --requests "$QUERY_WARMUP" --id-prefix "w$side" >/dev/null
        query --requests "$QUERIES" --id-prefix "q$side" | tail -1
        sleep 1.5 # kura flushes its access log about every second
        awk -v p="id=q$side-" '$3 == "POST" && $4 == "/api/query" && index($NF, p) == 1 {
                sub(/ms$/, "", $6); print $5, $6 }' "$dir/kura-$side.log" >"$dir/query-times-$side.txt"
        answered=$(wc -l <"$dir/query-times-$side.txt")
        not_ok=$(awk '$1 != 200' "$dir/query-times-$side.txt" | wc -l)
        if [ "$answered" -ne "$QUERIES" ] || [ "$not_ok" -gt 0 ]; then
            echo "WARNING: queries on $side: the log has $answered of $QUERIES measured queries, $not_ok not 200" >&2
            status=1
        fi
        read -r p50 p99 < <(awk '{ print $2 }' "$dir/query-times-$side.txt" | percentiles)
        echo "server time on $side: p50 $p50 ms  p99 $p99 ms"
        declare -g "p50_$side=$p50" "p99_$side=$p99"
    done
    query_ratio=$(ratio "$p50_postgres" "$p50_sqlite")
    echo "postgres_query_p50_ratio=$query_ratio (PostgreSQL's p50 over SQLite's: above 1 is slower)"
fi

# --- Anything the servers complained about ----------------------------------------------------------------------
for side in sqlite postgres; do
    complaints=$(awk '($2 == "INFO" && $5 ~ /^[0-9]+$/ && $5 >= 400) || ($2 != "INFO" && $2 != "")' \
        "$dir/kura-$side.log" | head -20)
    if [ -n "$complaints" ]; then
        echo "WARNING: the $side node's log has error answers or warnings (first 20):" >&2
        echo "$complaints" >&2
    fi
done

echo "postgres_summary get_ratio=$get_ratio create_ratio=$create_ratio query_p50_ratio=$query_ratio" \
    "get_rps=$rps_get_sqlite/$rps_get_postgres create_rps=$rps_create_sqlite/$rps_create_postgres" \
    "query_p50_ms=$p50_sqlite/$p50_postgres docs=$DOCS (sqlite/postgres)"
exit "$status"
