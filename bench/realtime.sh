#!/usr/bin/env bash
# Benchmark, not a test: realtime listeners (docs/realtime.md).
#  1. LISTENERS streams on one query, one write every INTERVAL_MS ms for WRITES writes: the time from each write's
#     answer (ack) to each listener's event                                         -> p50_ms, p99_ms (targets ≤ 20, ≤ 100)
#  2. IDLE streams held on another query: kura's resident memory with them open     -> idle_rss_mb (target ≤ 300)
#  3. one write to that query reaching all IDLE streams                             -> fanout_10k_ms (target ≤ 1000)
# The load client is bench/realtime_load.c (epoll, one process), compiled here. Each figure is printed on its own
# line; the last line sums up: `realtime_summary listen_as=… rule=… users=… p50_ms=… p99_ms=… idle_rss_mb=…
# fanout_10k_ms=…`.
#
# Usage: bench/realtime.sh   (needs swift, cc and curl)
#        LISTENERS=50 IDLE=200 WRITES=100 bench/realtime.sh   (a quick try)
# Environment: LISTENERS=1000 WRITES=1000 INTERVAL_MS=10 IDLE=10000 BUILD_DIR=.build
#              LISTEN_AS=admin|user|users: listeners use the admin key (default), one signed-up user's ID token,
#              or the tokens of USERS signed-up users (default LISTENERS), listener i the (i mod USERS)th: callers
#              the server checks one by one, where one user's listeners share one check (docs/realtime.md);
#              writes always use the admin key.
#              RULE=open|document: with a user, the rule on `feed` and `fan`: `allow read: if true` (default), or
#              one that reads the document, `allow read: if request.auth != null && resource.data.seq is int`.
#              KURA_ARGS="--set http.eventLoops=2" adds flags to `kura serve`.
set -euo pipefail

LISTENERS=${LISTENERS:-1000}
WRITES=${WRITES:-1000}
INTERVAL_MS=${INTERVAL_MS:-10}
IDLE=${IDLE:-10000}
LISTEN_AS=${LISTEN_AS:-admin}
USERS=${USERS:-$LISTENERS}
RULE=${RULE:-open}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}

cd "$(dirname "$0")/.."
source bench/lib.sh
require_tools swift cc curl

# Ten thousand streams need as many descriptors in the client and in kura (which raises its own limit to fit
# http.maxConnections, within the hard limit raised here).
ulimit -Hn 1048576 2>/dev/null || true
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((IDLE + LISTENERS + 100)) ]; then
    echo "$BENCH: open-file limit $(ulimit -n) is below the $((IDLE + LISTENERS + 100)) streams needed" >&2
    exit 1
fi

build_kura
make_bench_dir
load=$dir/realtime_load
cc -O2 -pthread -o "$load" bench/realtime_load.c

connections=$((IDLE + LISTENERS + 1000))
KURA_ARGS="--set http.maxConnections=$connections --set realtime.maxConnections=$connections $KURA_ARGS"
port=$(free_port)
if [ "$LISTEN_AS" != admin ]; then
    condition=true
    [ "$RULE" = document ] && condition='request.auth != null && resource.data.seq is int'
    mkdir -p "$dir/kura_data" && chmod 700 "$dir/kura_data"
    printf '%s\n' "rules_version = '1';" "match /feed/{id} { allow read: if $condition; }" \
        "match /fan/{id} { allow read: if $condition; }" >"$dir/kura_data/kura.rules"
fi
# Signing up many users is many password hashes in a row: the sign-up rate limit would refuse most of them.
[ "$LISTEN_AS" = users ] && KURA_ARGS="--set auth.rateLimits=false $KURA_ARGS"
start_kura "$port" "$dir/kura_data" "$dir/kura.log"
key=$(cat "$dir/kura_data/admin.key")
export WRITER_KEY=$key
if [ "$LISTEN_AS" = user ]; then
    key=$(curl -fsS -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$port/api/auth/signup" \
        -d '{"email":"listener@example.com","password":"bench-password"}' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["idToken"])')
    echo "listeners: a user's ID token (rule: allow read: if $condition)"
fi
if [ "$LISTEN_AS" = users ]; then
    started=$(date +%s)
    python3 - "$port" "$USERS" >"$dir/keys.txt" <<'PY'
import concurrent.futures, json, sys, urllib.request
port, count = int(sys.argv[1]), int(sys.argv[2])
def sign_up(i):
    body = json.dumps({"email": f"listener{i}@example.com", "password": "bench-password"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/auth/signup", body,
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["idToken"]
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    for token in pool.map(sign_up, range(count)):
        print(token)
PY
    export LISTEN_KEYS=$dir/keys.txt
    echo "listeners: the ID tokens of $(wc -l <"$LISTEN_KEYS") users, signed up in $(($(date +%s) - started)) s" \
        "(rule: allow read: if $condition)"
fi
rss() { awk '/^VmRSS:/ { printf "%.0f\n", $2 / 1024 }' "/proc/$kura_pid/status"; }
echo "kura's RSS at start: $(rss) MB"

# --- 1. Latency ---------------------------------------------------------------------------------------------------
echo "latency: $LISTENERS listeners, $WRITES writes, one every $INTERVAL_MS ms"
"$load" latency "$port" "$key" "$LISTENERS" "$WRITES" "$INTERVAL_MS" | tee "$dir/latency.txt"
eval "$(tr ' ' '\n' <"$dir/latency.txt" | grep '=')"
echo "p50_ms=$latency_ack_p50_ms"
echo "p99_ms=$latency_ack_p99_ms"
if [ "$missed" -ne 0 ]; then echo "WARNING: $missed events never arrived" >&2; fi

# --- 2 and 3. Idle streams and fan-out ----------------------------------------------------------------------------
curl -fsS -o /dev/null -X PUT -H "Authorization: Bearer $WRITER_KEY" -H 'Content-Type: application/json' \
    -d '{"data":{"seq":-1}}' "http://127.0.0.1:$port/api/docs/fan/x"
echo "idle: opening $IDLE listeners"
mkfifo "$dir/fanout.in"
"$load" fanout "$port" "$key" "$IDLE" <"$dir/fanout.in" >"$dir/fanout.out" 2>&1 &
fanout_pid=$!
pids+=("$fanout_pid")
exec 3>"$dir/fanout.in" # the client's stdin: it waits for a line before writing
until grep -q '^ready' "$dir/fanout.out"; do
    if ! kill -0 "$fanout_pid" 2>/dev/null; then
        echo "$BENCH: the load client failed: $(cat "$dir/fanout.out")" >&2
        exit 1
    fi
    sleep 0.2
done
sleep 2 # let the server settle (the worker pool's snapshot reads done, buffers returned)
idle_rss_mb=$(rss)
echo "idle_rss_mb=$idle_rss_mb"
echo go >&3
exec 3>&-
if ! wait "$fanout_pid"; then
    echo "$BENCH: the load client failed: $(cat "$dir/fanout.out")" >&2
    exit 1
fi
eval "$(tail -1 "$dir/fanout.out" | tr ' ' '\n' | grep '=')"
echo "fanout_10k_ms=$fanout_ack_ms (from the write's send: $fanout_send_ms ms; $IDLE listeners)"

complaints=$(awk '$2 != "INFO" && $2 != ""' "$dir/kura.log" | head -20)
if [ -n "$complaints" ]; then
    echo "WARNING: kura logged warnings (first 20):" >&2
    echo "$complaints" >&2
fi
echo "realtime_summary listen_as=$LISTEN_AS rule=$RULE users=$([ "$LISTEN_AS" = users ] && echo "$USERS" || echo 1) p50_ms=$latency_ack_p50_ms p99_ms=$latency_ack_p99_ms idle_rss_mb=$idle_rss_mb" \
    "fanout_10k_ms=$fanout_ack_ms listeners=$LISTENERS idle=$IDLE"
