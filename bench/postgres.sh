#!/usr/bin/env bash
# Benchmark, not a test: the PostgreSQL engine beside the SQLite engine, in one run (docs/performance.md,
# "bench/postgres.sh"; issue 17's targets in brackets).
#  1. GET of a 1 KB document with the admin key (served from the node's document cache), kura on PostgreSQL and
#     kura on SQLite in the same rounds                                        -> pg_get_ratio       [≥ 0.9]
#  2. durable creates (POST, 201), the same way                                -> pg_create_ratio    [≥ 0.5]
#  3. DOCS documents loaded into each (POST /api/commit); 'status == S orderBy rank desc limit 20' without
#     composite indexes; then bench/docs.sh's composite indexes declared and 'cat == C' (100 uniform values),
#     'tier == "gold"' (0.1 %) and 'cat in [3 values]', each 'orderBy rank desc limit 20': server times from each
#     kura's access log                                 -> pg_query_p50_ms, pg_query_p99_ms   [p50 ≤ 3 ms at 1M]
#                                                          (uniform, indexed), and every shape's p50/p99 per engine
#  hot. HOT_CONNECTIONS writers incrementing one document in commits, as a user whose rules read the document (each
#     write rule-checked, pinned to what the rules saw): updates/s, and how many were answered other than 200
#                                                                     -> pg_hot_ratio, hot_not_ok (must be 0)
#  4. three kura nodes on the one PostgreSQL, LISTENERS listeners spread over them, WRITES writes through the first:
#     from each write's answer to each listener's event                  -> cross_node_p50_ms, cross_node_p99_ms
#                                                                                                      [p99 ≤ 100 ms]
# PostgreSQL is a throwaway server of Tests/Support/postgres_server.sh (Debian's PostgreSQL 15, fsync on), started
# and removed by this script. The last line sums up: `postgres_summary get_ratio=… create_ratio=… …`.
#
# Usage: bench/postgres.sh   (needs what `make bench` installs, plus postgresql)
#        DOCS=50000 ROUNDS=1 DURATION=5 LISTENERS=300 WRITES=200 bench/postgres.sh   (a quick try)
#        STEPS="get create" bench/postgres.sh   (STEPS lists any of get, create, hot, query, realtime; default all)
# Environment: ROUNDS=3 DURATION=10 CONNECTIONS=64 THREADS=2 BUILD_DIR=.build KURA_BIN=<binary>
#              KURA_ARGS="…" (flags for every kura), DOCS=1000000 LOADERS=4 QUERIES=2000 QUERY_CLIENTS=2,
#              LISTENERS=1000 WRITES=1000 INTERVAL_MS=10, POOL_SIZE=16 (store.poolSize of each PostgreSQL node),
#              HOT_CONNECTIONS=8 (the hot step's writers).
#              KURA_ARGS="--set logLevel=debug": step 4 also prints each node's stage times (docs/design/scaling.md,
#              "Realtime across nodes: where the time goes").
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
DOCS=${DOCS:-1000000}
LOADERS=${LOADERS:-4}
QUERIES=${QUERIES:-2000}
QUERY_CLIENTS=${QUERY_CLIENTS:-2}
LISTENERS=${LISTENERS:-1000}
WRITES=${WRITES:-1000}
INTERVAL_MS=${INTERVAL_MS:-10}
POOL_SIZE=${POOL_SIZE:-16}
HOT_CONNECTIONS=${HOT_CONNECTIONS:-8}
STEPS=${STEPS:-get create hot query realtime}
WARMUP=2
QUERY_WARMUP=200

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl cc python3
[ -x /usr/lib/postgresql/15/bin/initdb ] || [ -n "${PG_BIN:-}" ] ||
    { echo "$BENCH: no PostgreSQL binaries (apt-get install postgresql)" >&2; exit 1; }
ulimit -Hn 1048576 2>/dev/null || true
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

build_kura
make_bench_dir
postgres=$(bash Tests/Support/postgres_server.sh start --owner-pid $$)
pg_url=$(sed -n 1p <<<"$postgres")
pg_dir=$(sed -n 2p <<<"$postgres")
trap 'bash Tests/Support/postgres_server.sh stop "$pg_dir" >/dev/null 2>&1 || true; cleanup' EXIT
connections=$((LISTENERS + 1000))
common_args="--set http.maxConnections=$connections --set realtime.maxConnections=$connections $KURA_ARGS"
pg_args="--set store.engine=postgres --set store.url=$pg_url --set store.poolSize=$POOL_SIZE"

# Starts kura named $1 on a free port with data dir $dir/$1 and extra flags $2; sets port_$1, key_$1, pid_$1.
start_node() {
    local name=$1 extra=$2 port
    port=$(free_port)
    KURA_ARGS="$common_args $extra" start_kura "$port" "$dir/$name" "$dir/$name.log"
    declare -g "port_$name=$port" "key_$name=$(cat "$dir/$name/admin.key")" "pid_$name=$kura_pid"
}
start_node sqlite ""
start_node pg "$pg_args"
echo "kura $("$kura" --version | awk '{print $NF}') on SQLite (data dir) and on PostgreSQL $(psql "$pg_url" -XAtc 'SHOW server_version') ($pg_url, store.poolSize=$POOL_SIZE);" \
    "$(nproc) cores; wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections"

status=0
get_ratio=skipped create_ratio=skipped pg_p50=skipped pg_p99=skipped sqlite_p50=skipped sqlite_p99=skipped
cross_p50=skipped cross_p99=skipped hot_ratio=skipped hot_not_ok=skipped
steps=" $STEPS "

# Fails unless `curl …` ($3…) against node $1 answers HTTP $2; prints the body.
call() {
    local name=$1 want=$2 key out
    shift 2
    key=key_$name
    out=$(curl -sS -o "$dir/curl-body" -w '%{http_code}' -H "Authorization: Bearer ${!key}" "$@") || true
    if [ "$out" != "$want" ]; then
        echo "$BENCH: expected HTTP $want from $name: curl $*, got $out: $(head -c 500 "$dir/curl-body")" >&2
        exit 1
    fi
    cat "$dir/curl-body"
}

# --- 1. Cached GET ------------------------------------------------------------------------------------------------
if [[ $steps == *" get "* ]]; then
    bio=$(head -c 700 /dev/zero | tr '\0' 'x')
    for name in sqlite pg; do
        port=port_$name
        call "$name" 200 -X PUT "http://127.0.0.1:${!port}/api/docs/bench/doc1k" -H 'Content-Type: application/json' \
            --data-binary "{\"data\":{\"name\":\"Ada Lovelace\",\"plan\":\"pro\",\"tags\":[\"math\",\"poetry\"],\"bio\":\"$bio\"}}" \
            >/dev/null
        call "$name" 200 "http://127.0.0.1:${!port}/api/docs/bench/doc1k" >/dev/null
    done
    echo "== GET /api/docs/bench/doc1k ($(call pg 200 "http://127.0.0.1:$port_pg/api/docs/bench/doc1k" | wc -c) bytes)," \
        "admin key: kura on SQLite (sqlite) and on PostgreSQL (pg)"
    wrk_sqlite=("http://127.0.0.1:$port_sqlite/api/docs/bench/doc1k" -H "Authorization: Bearer $key_sqlite")
    wrk_pg=("http://127.0.0.1:$port_pg/api/docs/bench/doc1k" -H "Authorization: Bearer $key_pg")
    run_sides get- sqlite pg
    echo "median  sqlite $rps_sqlite req/s  p99 $p99_sqlite ms  |  pg $rps_pg req/s  p99 $p99_pg ms"
    sides_clean sqlite pg || status=1
    get_ratio=$(ratio "$rps_pg" "$rps_sqlite")
    echo "pg_get_ratio=$get_ratio"
fi

# --- 2. Durable creates -------------------------------------------------------------------------------------------
if [[ $steps == *" create "* ]]; then
    echo "== POST /api/docs/bench_creates (durable, 201 each): kura on SQLite and on PostgreSQL"
    wrk_sqlite=("http://127.0.0.1:$port_sqlite/api/docs/bench_creates" -H "Authorization: Bearer $key_sqlite"
        -s bench/docs-create.lua)
    wrk_pg=("http://127.0.0.1:$port_pg/api/docs/bench_creates" -H "Authorization: Bearer $key_pg"
        -s bench/docs-create.lua)
    run_sides create- sqlite pg
    echo "median  sqlite $rps_sqlite creates/s  p99 $p99_sqlite ms  |  pg $rps_pg creates/s  p99 $p99_pg ms"
    sides_clean sqlite pg || status=1
    sleep 1.1
    for name in sqlite pg; do
        read -r creates created < <(awk '$4 == "/api/docs/bench_creates" && $3 == "POST" { n++; if ($5 == 201) ok++ }
            END { print n + 0, ok + 0 }' "$dir/$name.log")
        echo "$name: creates in the access log: $creates, of which 201: $created"
        if [ "$creates" -eq 0 ] || [ "$created" -ne "$creates" ]; then status=1; fi
    done
    create_ratio=$(ratio "$rps_pg" "$rps_sqlite")
    echo "pg_create_ratio=$create_ratio"
fi

# --- hot. One document, many writers ---------------------------------------------------------------------------
if [[ $steps == *" hot "* ]]; then
    echo "== POST /api/commit incrementing hot/h, $HOT_CONNECTIONS writers as one user, rule-checked: SQLite and PostgreSQL"
    for name in sqlite pg; do
        port=port_$name
        printf '%s\n' "rules_version = '1';" 'match /hot/{id} {' '  allow get: if true;' \
            '  allow update: if request.auth != null && request.resource.data.n >= resource.data.n;' '}' |
            call "$name" 200 -X POST "http://127.0.0.1:${!port}/api/admin/rules" -H 'Content-Type: text/plain' \
                --data-binary @- >/dev/null
        call "$name" 200 -X PUT "http://127.0.0.1:${!port}/api/docs/hot/h" -H 'Content-Type: application/json' \
            --data-binary '{"data":{"n":0}}' >/dev/null
        signup=$(curl -fsS -X POST "http://127.0.0.1:${!port}/api/auth/signup" -H 'Content-Type: application/json' \
            --data-binary '{"email":"hot@example.com","password":"bench-password"}')
        declare -g "hot_token_$name=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["idToken"])' <<<"$signup")"
    done
    wrk_sqlite=("http://127.0.0.1:$port_sqlite/api/commit" -H "Authorization: Bearer $hot_token_sqlite"
        -s bench/docs-hot.lua)
    wrk_pg=("http://127.0.0.1:$port_pg/api/commit" -H "Authorization: Bearer $hot_token_pg" -s bench/docs-hot.lua)
    CONNECTIONS=$HOT_CONNECTIONS run_sides hot- sqlite pg
    echo "median  sqlite $rps_sqlite updates/s  p99 $p99_sqlite ms  |  pg $rps_pg updates/s  p99 $p99_pg ms"
    sleep 1.1
    hot_not_ok=0
    for name in sqlite pg; do
        read -r commits ok < <(awk '$4 == "/api/commit" && $3 == "POST" { n++; if ($5 == 200) ok++ }
            END { print n + 0, ok + 0 }' "$dir/$name.log")
        echo "$name: hot commits in the access log: $commits, of which 200: $ok"
        hot_not_ok=$((hot_not_ok + commits - ok))
    done
    hot_ratio=$(ratio "$rps_pg" "$rps_sqlite")
    echo "pg_hot_ratio=$hot_ratio hot_not_ok=$hot_not_ok"
fi

# --- 3. A query on a large collection -------------------------------------------------------------------------------
# Nearest-rank percentiles of the times on stdin: prints "p50 p99".
percentiles() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan nan"; exit }
        i = int((NR * 50 + 99) / 100); j = int((NR * 99 + 99) / 100); printf "%.3f %.3f\n", v[i], v[j] }'
}
# Runs QUERIES measured queries of shape $3 against node $1 (URL $2) with request IDs $4-…, after QUERY_WARMUP
# unmeasured ones, and sets p50 and p99: the server times (ms) from node $1's access log. $5: documents each value
# has at least (for the answer check).
measure_queries() {
    local name=$1 url=$2 shape=$3 prefix=$4 at_least=$5 key=key_$1 answered not_ok
    python3 bench/docs.py query --url "$url" --key "${!key}" --clients "$QUERY_CLIENTS" --shape "$shape" \
        --expect-at-least "$at_least" --requests "$QUERY_WARMUP" --id-prefix "w$prefix" >/dev/null
    python3 bench/docs.py query --url "$url" --key "${!key}" --clients "$QUERY_CLIENTS" --shape "$shape" \
        --expect-at-least "$at_least" --requests "$QUERIES" --id-prefix "$prefix" >/dev/null
    sleep 1.5 # kura flushes its access log about every second
    # The request ID is a field of its own (`id=…`), wherever it stands among the ones after the time.
    awk -v p="id=$prefix-" '$3 == "POST" && $4 == "/api/query" {
            for (i = 7; i <= NF; i++) if (index($i, p) == 1) { sub(/ms$/, "", $6); print $5, $6 } }' \
        "$dir/$name.log" >"$dir/query-$prefix.txt"
    answered=$(wc -l <"$dir/query-$prefix.txt")
    not_ok=$(awk '$1 != 200' "$dir/query-$prefix.txt" | wc -l)
    if [ "$answered" -ne "$QUERIES" ] || [ "$not_ok" -gt 0 ]; then
        echo "WARNING: $name $shape: the access log has $answered of $QUERIES queries, $not_ok not 200" >&2
        status=1
    fi
    read -r p50 p99 < <(awk '{ print $2 }' "$dir/query-$prefix.txt" | percentiles)
}
if [[ $steps == *" query "* ]]; then
    for name in sqlite pg; do
        port=port_$name key=key_$name
        url="http://127.0.0.1:${!port}"
        echo "== $name: $DOCS documents into 'items' ($LOADERS loaders); 'status == S orderBy rank desc limit 20'" \
            "without composite indexes, then the composite indexes declared and 'cat == C' (100 uniform values)," \
            "'tier == \"gold\"' (0.1 %) and 'cat in [3 values]', all 'orderBy rank desc limit 20'"
        python3 bench/docs.py load --url "$url" --key "${!key}" --docs "$DOCS" --loaders "$LOADERS" |
            grep 'load_docs_per_s=' | sed "s/^/${name}_/"
        measure_queries "$name" "$url" status "${name}s" "$((DOCS / 200))"
        echo "${name} status (no composite index): p50 $p50 ms, p99 $p99 ms"
        declare -g "${name}_status_p50=$p50"
        python3 bench/docs.py indexes --url "$url" --key "${!key}" --write-interval-ms 50 |
            grep -e '^index_build_seconds' -e 'writes' | sed "s/^/${name}: /"
        python3 bench/docs.py explain --url "$url" --key "${!key}" | grep -i -e 'examined' -e 'index' | head -4
        measure_queries "$name" "$url" uniform "${name}u" "$((DOCS / 200))"
        declare -g "${name}_p50=$p50" "${name}_p99=$p99"
        line="uniform $p50/$p99"
        measure_queries "$name" "$url" rare "${name}r" "$(((DOCS + 999) / 1000))"
        line+="  rare $p50/$p99"
        declare -g "${name}_rare_p50=$p50" "${name}_rare_p99=$p99"
        measure_queries "$name" "$url" in "${name}i" "$((DOCS / 200))"
        line+="  in $p50/$p99"
        echo "$name with composite indexes, server time p50/p99 ms: $line"
    done
    echo "pg_query_p50_ms=$pg_p50 pg_query_p99_ms=$pg_p99 (uniform, indexed; sqlite $sqlite_p50/$sqlite_p99)"
fi

# --- 4. Realtime across three nodes -----------------------------------------------------------------------------------
if [[ $steps == *" realtime "* ]]; then
    start_node pg2 "$pg_args"
    start_node pg3 "$pg_args"
    load=$dir/realtime_load
    cc -O2 -pthread -o "$load" bench/realtime_load.c
    echo "== $LISTENERS listeners spread over three PostgreSQL nodes (ports $port_pg, $port_pg2, $port_pg3)," \
        "$WRITES writes through the first, one every $INTERVAL_MS ms"
    # Every node shares the admin key in this mode; the listeners use each node's file all the same.
    WRITER_KEY=$key_pg LISTEN_PORTS="$port_pg,$port_pg2,$port_pg3" \
        "$load" latency "$port_pg" "$key_pg" "$LISTENERS" "$WRITES" "$INTERVAL_MS" | tee "$dir/latency.txt"
    eval "$(tr ' ' '\n' <"$dir/latency.txt" | grep '=')"
    cross_p50=$latency_ack_p50_ms cross_p99=$latency_ack_p99_ms
    # With KURA_ARGS="--set logLevel=debug" every node logs, every 5 s, where an event's time went
    # (docs/design/scaling.md, "Realtime across nodes: where the time goes"): wait for the last window, then show
    # each node's lines.
    if grep -q 'realtime: delivery times' "$dir"/pg*.log; then
        sleep 5.5
        for name in pg pg2 pg3; do
            grep 'realtime: delivery times' "$dir/$name.log" | sed "s/^.*delivery times, /$name: /"
        done
    fi
    if [ "${missed:-0}" -ne 0 ]; then
        echo "WARNING: $missed events never arrived" >&2
        status=1
    fi
    echo "cross_node_p50_ms=$cross_p50 cross_node_p99_ms=$cross_p99"
fi

for log in "$dir"/*.log; do
    complaints=$(awk '($2 == "INFO" && $5 ~ /^[0-9]+$/ && $5 >= 400) || ($2 != "INFO" && $2 != "DEBUG" && $2 != "")' \
        "$log" | head -10)
    if [ -n "$complaints" ]; then
        echo "WARNING: $(basename "$log") has error answers or warnings (first 10):" >&2
        echo "$complaints" >&2
    fi
done

echo "postgres_summary get_ratio=$get_ratio create_ratio=$create_ratio pg_query_p50_ms=$pg_p50" \
    "pg_query_p99_ms=$pg_p99 sqlite_query_p50_ms=$sqlite_p50 sqlite_query_p99_ms=$sqlite_p99" \
    "pg_rare_p50_ms=${pg_rare_p50:-skipped} pg_status_unindexed_p50_ms=${pg_status_p50:-skipped}" \
    "sqlite_status_unindexed_p50_ms=${sqlite_status_p50:-skipped} docs=$DOCS" \
    "cross_node_p50_ms=$cross_p50 cross_node_p99_ms=$cross_p99 listeners=$LISTENERS" \
    "hot_ratio=$hot_ratio hot_not_ok=$hot_not_ok"
exit "$status"
