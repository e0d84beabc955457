#!/usr/bin/env bash
# Benchmark, not a test: kura's document API (docs/performance.md, "bench/docs.sh").
#  1. GET of a 1 KB document under users/<uid>/ against nginx serving the same bytes as a static file, with the
#     admin key (no rules) and as the user <uid> (ID token, rule-checked), all three in the same rounds
#                                        -> docs_get_ratio, docs_user_get_ratio, docs_user_get_vs_admin_ratio
#  2. durable creates (POST /api/docs/bench_creates, 201) against nginx's GET of the 33-byte health body
#                                                                                     -> docs_create_ratio
#  3. DOCS documents loaded into `items` with /api/commit (500 writes per commit), then `status == S orderBy rank
#     desc limit 20` many times; the server time per query from kura's access log    -> query_p50_ms, query_p99_ms,
#     and kura's resident memory after loading                                       -> rss_mb
#     With INDEXES=1 (default), the same for `cat == C` (100 uniform values) and `tier == "gold"` (0.1 %) without
#     composite indexes, then a durable write every 20 ms for BASELINE_SECONDS without an index build, then
#     composite indexes declared over the loaded documents (POST /api/admin/indexes; build time, and the same
#     writes answered during the build: their p99 over the baseline's), then all three shapes with them
#     and `cat in [C, C+37, C+71]` (three of the 100 values; one range per value of the `cat` index, merged)
#                     -> query_uniform_p50_ms, query_uniform_p99_ms, query_rare_p50_ms, query_rare_p99_ms,
#                        query_in_p50_ms, query_in_p99_ms, index_build_seconds, build_write_p99_ratio
# wrk measures 1 and 2 like bench/http.sh (warm-up, then rounds alternating which side goes first, medians); kura
# and nginx both log every request. The last line sums up: `docs_summary get_ratio=… user_get_ratio=… …`.
#
# Usage: bench/docs.sh   (needs what `make bench` installs, plus python3)
#        DOCS=50000 ROUNDS=1 DURATION=5 bench/docs.sh   (a quick try)
#        STEPS=create ROUNDS=3 bench/docs.sh   (step 2 alone; STEPS lists any of get, create, query; default all)
# Environment: ROUNDS=5 DURATION=10 (seconds per side per round) CONNECTIONS=64 THREADS=2 BUILD_DIR=.build
#              KURA_ARGS="--set http.eventLoops=2" adds flags to `kura serve`;
#              DOCS=1000000 LOADERS=4 (parallel commit connections) QUERIES=2000 QUERY_CLIENTS=2 INDEXES=1
#              BASELINE_SECONDS=60 (for step 3);
#              KEEP_LOGS=/some/dir copies kura's logs (hundreds of MB after a full run), nginx's error log and
#              wrk's reports there on exit.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
DOCS=${DOCS:-1000000}
LOADERS=${LOADERS:-4}
QUERIES=${QUERIES:-2000}
QUERY_CLIENTS=${QUERY_CLIENTS:-2}
INDEXES=${INDEXES:-1}
BASELINE_SECONDS=${BASELINE_SECONDS:-60}
KEEP_LOGS=${KEEP_LOGS:-}
STEPS=${STEPS:-get create query}
WARMUP=2
QUERY_WARMUP=200 # queries before the measured ones, left out of the figures
DOC_BYTES=1024   # the GET body size of the document in step 1

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl "$nginx"
command -v python3 >/dev/null || { echo "$BENCH: python3 not found" >&2; exit 1; }

build_kura
make_bench_dir
keep_logs() {
    if [ -n "$KEEP_LOGS" ] && [ -d "$dir" ]; then
        mkdir -p "$KEEP_LOGS"
        cp "$dir"/*.log "$dir"/wrk-*.txt "$KEEP_LOGS"/ 2>/dev/null || true
        cp "$dir/nginx/error.log" "$KEEP_LOGS/nginx-error.log" 2>/dev/null || true
    fi
}
trap 'keep_logs; cleanup' EXIT

kura_port=$(free_port)
nginx_port=$(free_port_except "$kura_port")
query_port=$(free_port_except "$kura_port" "$nginx_port")
kura_base=http://127.0.0.1:$kura_port
nginx_base=http://127.0.0.1:$nginx_port

start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"
key=$(cat "$dir/kura_data/admin.key")
auth="Authorization: Bearer $key"

# Fails with the answer unless `curl …` ($2…) answers HTTP $1; prints the body otherwise.
expect() {
    local want=$1 out
    shift
    out=$(curl -sS -o "$dir/curl-body" -w '%{http_code}' -H "$auth" "$@") || true
    if [ "$out" != "$want" ]; then
        echo "$BENCH: expected HTTP $want from curl $*, got $out: $(head -c 500 "$dir/curl-body")" >&2
        exit 1
    fi
    cat "$dir/curl-body"
}

# --- 1. A 1 KB document ---------------------------------------------------------------------------------------
# Its owner, signed up through the API: the default rules let users/<uid>/… be read with the user's ID token.
signup=$(curl -fsS -X POST "$kura_base/api/auth/signup" -H 'Content-Type: application/json' \
    --data-binary '{"email":"bench-owner@example.com","password":"bench-password"}')
read -r uid id_token < <(python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["user"]["uid"], d["idToken"])' \
    <<<"$signup")
user_auth="Authorization: Bearer $id_token"
# A user-profile-like document; `bio` is sized so that the GET body is exactly DOC_BYTES (the metadata around
# `data` has a fixed length, but a retry covers a surprise).
doc_path=users/$uid/bench/doc1k
filler="Analyst and writer; notes on the Analytical Engine, Bernoulli numbers and poetical science. "
bio_length=600
for _ in 1 2 3; do
    bio=$(printf '%s' "$(printf "$filler%.0s" $(seq 20))" | head -c "$bio_length")
    expect 200 -X PUT "$kura_base/api/docs/$doc_path" -H 'Content-Type: application/json' --data-binary @- >/dev/null <<JSON
{"data":{"name":"Ada Lovelace","email":"ada@example.com","age":36,"active":true,"plan":"pro",
"tags":["math","engines","poetry"],"address":{"street":"12 St James's Square","city":"London","country":"GB"},
"scores":[98,87,91],"bio":"$bio"}}
JSON
    length=$(expect 200 "$kura_base/api/docs/$doc_path" | wc -c)
    [ "$length" -eq "$DOC_BYTES" ] && break
    bio_length=$((bio_length + DOC_BYTES - length))
done
mkdir -p "$(dirname "$dir/www/api/docs/$doc_path")"
expect 200 "$kura_base/api/docs/$doc_path" >"$dir/www/api/docs/$doc_path"
curl -fsS -o "$dir/www/api/health" "$kura_base/api/health"
start_nginx "$nginx_port" "$nginx_base/api/health"
same_response "$kura_base/api/docs/$doc_path" "$nginx_base/api/docs/$doc_path" -H "$auth"
# Also verifies the ID token once, so that the measured requests find it in kura's token cache.
same_response "$kura_base/api/docs/$doc_path" "$nginx_base/api/docs/$doc_path" -H "$user_auth"
same_response "$kura_base/api/health" "$nginx_base/api/health"

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} vs nginx $("$nginx" -v 2>&1 | sed 's|.*/||') (2 workers)," \
    "both logging every request"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "$(nproc) cores"
status=0
# Warns (and fails the run at the end) if $2 (kura or nginx) had errors in step $1.
check_errors() {
    local errors=errors_$2
    if [ "${!errors}" -gt 0 ]; then
        echo "WARNING: $1: $2 had ${!errors} socket errors or non-2xx responses; the figures are not comparable" >&2
        status=1
    fi
}

# Figures of a step left out of STEPS.
get_ratio=skipped user_get_ratio=skipped user_vs_admin=skipped create_ratio=skipped
query_p50=skipped query_p99=skipped rss_mb=skipped load_docs_per_s=skipped
uniform_p50=skipped uniform_p99=skipped rare_p50=skipped rare_p99=skipped index_build_seconds=skipped
build_write_p99_ratio=skipped
in_p50=skipped in_p99=skipped
steps=" $STEPS "

if [[ $steps == *" get "* ]]; then
    echo "== GET /api/docs/$doc_path, a $(wc -c <"$dir/www/api/docs/$doc_path")-byte body: kura with the admin key" \
        "(admin), kura as its owner with an ID token, rule-checked (user), and nginx's static copy (nginx)"
    wrk_admin=("$kura_base/api/docs/$doc_path" -H "$auth")
    wrk_user=("$kura_base/api/docs/$doc_path" -H "$user_auth")
    wrk_nginx=("$nginx_base/api/docs/$doc_path" -H "$auth")
    run_sides get- admin user nginx
    echo "median  admin $rps_admin req/s  p99 $p99_admin ms  |  user $rps_user req/s  p99 $p99_user ms  |" \
        "nginx $rps_nginx req/s  p99 $p99_nginx ms"
    check_errors GET admin
    check_errors GET user
    check_errors GET nginx
    get_ratio=$(ratio "$rps_admin" "$rps_nginx")
    user_get_ratio=$(ratio "$rps_user" "$rps_nginx")
    user_vs_admin=$(ratio "$rps_user" "$rps_admin")
    echo "docs_get_ratio=$get_ratio"
    echo "docs_user_get_ratio=$user_get_ratio"
    echo "docs_user_get_vs_admin_ratio=$user_vs_admin"
fi

# --- 2. Durable creates ---------------------------------------------------------------------------------------
if [[ $steps == *" create "* ]]; then
    create_body=$(sed -n 's/^wrk.body = \x27\(.*\)\x27$/\1/p' bench/docs-create.lua)
    echo "== POST /api/docs/bench_creates (${#create_body}-byte body, 201 each) against nginx's GET /api/health" \
        "($(wc -c <"$dir/www/api/health")-byte body)"
    kura_wrk=("$kura_base/api/docs/bench_creates" -H "$auth" -s bench/docs-create.lua)
    nginx_wrk=("$nginx_base/api/health")
    run_rounds create-
    echo "median  kura $rps_kura creates/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"
    check_errors creates kura
    check_errors creates nginx
    sleep 1.1 # kura flushes its access log about every second
    # wrk counts any 2xx as success; a create must be 201.
    read -r creates created < <(awk '$4 == "/api/docs/bench_creates" && $3 == "POST" { n++; if ($5 == 201) ok++ }
        END { print n + 0, ok + 0 }' "$dir/kura.log")
    echo "creates in kura's access log: $creates, of which 201: $created"
    if [ "$creates" -eq 0 ] || [ "$created" -ne "$creates" ]; then
        echo "WARNING: creates: $((creates - created)) of $creates answers were not 201" >&2
        status=1
    fi
    create_ratio=$(ratio "$rps_kura" "$rps_nginx")
    echo "docs_create_ratio=$create_ratio"
fi

# --- 3. A query on a large collection -------------------------------------------------------------------------
if [[ $steps == *" query "* ]]; then
    # A kura of its own, so that step 2's documents do not count in its memory.
    echo "== $DOCS documents into 'items' (POST /api/commit, $LOADERS loaders), then $QUERIES queries" \
        "'status == S orderBy rank desc limit 20' from $QUERY_CLIENTS clients"
    start_kura "$query_port" "$dir/query_data" "$dir/kura-query.log"
    query_key=$(cat "$dir/query_data/admin.key")
    python3 bench/docs.py load --url "http://127.0.0.1:$query_port" --key "$query_key" --docs "$DOCS" \
        --loaders "$LOADERS" | tee "$dir/load.txt" | grep -v '^load_'
    eval "$(grep '^load_' "$dir/load.txt")" # load_seconds, load_docs_per_s
    rss() { awk '/^VmRSS:/ { printf "%.0f\n", $2 / 1024 }' "/proc/$kura_pid/status"; }
    rss_mb=$(rss)
    echo "kura's RSS after loading: $rss_mb MB (database $(du -sm "$dir/query_data" | cut -f1) MB on disk)"
    # The rarest status still has at least 20 documents unless DOCS is tiny; the check needs to know.
    expect_at_least=$((DOCS / 200))
    query() {
        python3 bench/docs.py query --url "http://127.0.0.1:$query_port" --key "$query_key" \
            --clients "$QUERY_CLIENTS" "$@"
    }
    # Nearest-rank percentiles of the times on stdin: prints "p50 p99".
    percentiles() {
        sort -g | awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "nan nan"; exit }
            i = int((NR * 50 + 99) / 100); j = int((NR * 99 + 99) / 100); printf "%.3f %.3f\n", v[i], v[j] }'
    }
    # Runs QUERIES measured queries of shape $1 with request IDs $2-…, after QUERY_WARMUP unmeasured ones, and sets
    # p50 and p99: the server times (ms) from lines `… INFO POST /api/query 200 1.234ms id=$2-open-17` of kura's
    # log. $3: documents each value has at least (for the answer check).
    measure() {
        local shape=$1 prefix=$2 at_least=$3
        query --shape "$shape" --expect-at-least "$at_least" --requests "$QUERY_WARMUP" --id-prefix "w$prefix" >/dev/null
        query --shape "$shape" --expect-at-least "$at_least" --requests "$QUERIES" --id-prefix "$prefix"
        sleep 1.5 # kura flushes its access log about every second
        # The request ID is a field of its own (`id=…`), wherever it stands among the ones after the time.
        awk -v p="id=$prefix-" '$3 == "POST" && $4 == "/api/query" {
                for (i = 7; i <= NF; i++) if (index($i, p) == 1) { split($i, id, "-"); sub(/ms$/, "", $6)
                    print id[2], $5, $6 } }' "$dir/kura-query.log" \
            >"$dir/query-times-$prefix.txt"
        local answered not_ok
        answered=$(wc -l <"$dir/query-times-$prefix.txt")
        not_ok=$(awk '$2 != 200' "$dir/query-times-$prefix.txt" | wc -l)
        if [ "$answered" -ne "$QUERIES" ] || [ "$not_ok" -gt 0 ]; then
            echo "WARNING: queries $prefix: kura's log has $answered of $QUERIES measured queries, $not_ok not 200" >&2
            status=1
        fi
        read -r p50 p99 < <(awk '{ print $3 }' "$dir/query-times-$prefix.txt" | percentiles)
    }
    measure status q "$expect_at_least"
    echo "kura's RSS after the queries: $(rss) MB"
    by_status=""
    for value in $(awk '{ print $1 }' "$dir/query-times-q.txt" | sort -u); do
        read -r s50 s99 < <(awk -v s="$value" '$1 == s { print $3 }' "$dir/query-times-q.txt" | percentiles)
        by_status+="  $value $s50/$s99"
    done
    echo "server time p50/p99 ms by status:$by_status"
    query_p50=$p50 query_p99=$p99
    echo "query_p50_ms=$query_p50"
    echo "query_p99_ms=$query_p99"

    if [ "$INDEXES" = 1 ]; then
        # The same walk with 100 equally common values, and with a value on 0.1 % of the documents: first with
        # the single-field indexes alone, then with composite indexes declared (built while writes go on).
        rare_at_least=$(((DOCS + 999) / 1000))
        echo "== 'cat == C orderBy rank desc limit 20' (C uniform over 0..99) and 'tier == \"gold\" orderBy rank" \
            "desc limit 20' (0.1 % of the documents), without composite indexes"
        measure uniform u0 "$((DOCS / 200))"
        uniform0_p50=$p50 uniform0_p99=$p99
        measure rare r0 "$rare_at_least"
        rare0_p50=$p50 rare0_p99=$p99
        measure in n0 "$((DOCS / 200))"
        in0_p50=$p50 in0_p99=$p99
        echo "server time p50/p99 ms without composite indexes: uniform $uniform0_p50/$uniform0_p99" \
            "rare $rare0_p50/$rare0_p99 in $in0_p50/$in0_p99"
        echo "== a durable write every 20 ms for $BASELINE_SECONDS s; then composite indexes (status|cat|tier ASC," \
            "rank DESC) declared through /api/admin/indexes, the same writes while they build"
        python3 bench/docs.py indexes --url "http://127.0.0.1:$query_port" --key "$query_key" \
            --baseline-seconds "$BASELINE_SECONDS" | tee "$dir/indexes.txt"
        eval "$(grep -e '^index_build_seconds=' -e '^build_write_p99_ratio=' "$dir/indexes.txt")"
        python3 bench/docs.py explain --url "http://127.0.0.1:$query_port" --key "$query_key"
        measure status qi "$expect_at_least"
        status_index_p50=$p50 status_index_p99=$p99
        measure uniform ui "$((DOCS / 200))"
        uniform_p50=$p50 uniform_p99=$p99
        measure rare ri "$rare_at_least"
        rare_p50=$p50 rare_p99=$p99
        measure in ni "$((DOCS / 200))"
        in_p50=$p50 in_p99=$p99
        echo "server time p50/p99 ms with composite indexes: status $status_index_p50/$status_index_p99" \
            "uniform $uniform_p50/$uniform_p99 rare $rare_p50/$rare_p99 in $in_p50/$in_p99"
        echo "query_uniform_p50_ms=$uniform_p50 query_uniform_p99_ms=$uniform_p99"
        echo "query_rare_p50_ms=$rare_p50 query_rare_p99_ms=$rare_p99"
        echo "query_in_p50_ms=$in_p50 query_in_p99_ms=$in_p99"
    fi
    echo "rss_mb=$rss_mb"
fi

# --- Anything the servers complained about ----------------------------------------------------------------------
for log in kura.log kura-query.log; do
    [ -f "$dir/$log" ] || continue
    # Access-log lines with a status of 400 or more, and any line that is not an access-log line at INFO.
    complaints=$(awk '($2 == "INFO" && $5 ~ /^[0-9]+$/ && $5 >= 400) || ($2 != "INFO" && $2 != "")' "$dir/$log" | head -20)
    if [ -n "$complaints" ]; then
        echo "WARNING: $log has error answers or warnings (first 20):" >&2
        echo "$complaints" >&2
    fi
done
if [ -s "$dir/nginx/error.log" ]; then
    echo "WARNING: nginx's error log:" >&2
    head -20 "$dir/nginx/error.log" >&2
fi

echo "docs_summary get_ratio=$get_ratio user_get_ratio=$user_get_ratio user_get_vs_admin_ratio=$user_vs_admin" \
    "create_ratio=$create_ratio query_p50_ms=$query_p50 query_p99_ms=$query_p99 rss_mb=$rss_mb docs=$DOCS" \
    "load_docs_per_s=$load_docs_per_s uniform_p50_ms=$uniform_p50 uniform_p99_ms=$uniform_p99" \
    "rare_p50_ms=$rare_p50 rare_p99_ms=$rare_p99 in_p50_ms=$in_p50 in_p99_ms=$in_p99" \
    "index_build_seconds=$index_build_seconds build_write_p99_ratio=$build_write_p99_ratio"
exit "$status"
