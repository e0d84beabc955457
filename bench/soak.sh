#!/usr/bin/env bash
# Soak, not a test: kura under DURATION seconds of mixed traffic at CONNECTIONS connections (docs/reliability.md,
# "Soak"). Seeds ITEMS documents in `items` (bench/docs.py load) and ACCOUNTS accounts with NOTES notes each under
# users/<uid>/notes, then runs at once, until DURATION:
#  - wrk (bench/soak.lua) on CONNECTIONS - LISTENERS keep-alive connections: admin GETs and PATCHes of items,
#    user (rule-checked) GETs and PUTs of notes, admin queries on items and user queries on notes; run in
#    consecutive windows of INTERVAL seconds (a new wrk per window), so each window has its own latency histogram
#    and status counts; the connections are opened anew each window;
#  - bench/soak_listen.py: LISTENERS listen streams as users on their notes, each closed after 0.5–3 s and opened
#    again (churn), logging each open's status and time to the snapshot.
# Per window it prints one line: requests, req/s, p50/p99 (wrk's, client side, includes queueing), the answers by
# status, wrk's socket errors, the listen streams opened and failed, and the server's RSS (VmRSS) and open
# descriptors (/proc/PID/fd), sampled one second before the window ends. The first WARMUP seconds are warm-up: shown,
# left out of the drift. Then a summary, and the last line:
#   soak_errors=N rss_drift_mb=… fds_drift=… p99_first_ms=… p99_last_ms=…
# where soak_errors counts answers other than 2xx/429/503, socket errors (timeouts included) and failed listen
# streams, and the drifts/p99s compare the last window with the first one after warm-up. Exits 1 if soak_errors > 0.
#
# Usage: bench/soak.sh   (needs what `make bench` installs: wrk, curl, python3)
#        DURATION=120 bench/soak.sh   (a short run)
#        ENGINE=postgres bench/soak.sh   (kura on a PostgreSQL started for the run, Tests/Support/postgres_server.sh)
# Environment: DURATION=600 CONNECTIONS=256 LISTENERS=32 INTERVAL=30 WARMUP=30 THREADS=2 ITEMS=5000 ACCOUNTS=50
#              NOTES=20 TIMEOUT=10 (wrk's request timeout, seconds) BUILD_DIR=.build
#              KURA_ARGS="--set http.eventLoops=2" adds flags to `kura serve`; KEEP_LOGS=/some/dir copies kura's
#              log, the listen log and wrk's reports there on exit.
set -euo pipefail

DURATION=${DURATION:-600}
CONNECTIONS=${CONNECTIONS:-256}
LISTENERS=${LISTENERS:-32}
INTERVAL=${INTERVAL:-30}
WARMUP=${WARMUP:-30}
THREADS=${THREADS:-2}
ITEMS=${ITEMS:-5000}
ACCOUNTS=${ACCOUNTS:-50}
NOTES=${NOTES:-20}
TIMEOUT=${TIMEOUT:-10}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
KEEP_LOGS=${KEEP_LOGS:-}
ENGINE=${ENGINE:-sqlite}

cd "$(dirname "$0")/.."
source bench/lib.sh
require_tools swift wrk curl python3
if [ "$LISTENERS" -ge "$CONNECTIONS" ]; then
    echo "$BENCH: LISTENERS ($LISTENERS) must be below CONNECTIONS ($CONNECTIONS)" >&2
    exit 1
fi
windows=$(((DURATION + INTERVAL - 1) / INTERVAL))
warmup_windows=$(((WARMUP + INTERVAL - 1) / INTERVAL))
if [ "$warmup_windows" -ge "$windows" ]; then
    echo "$BENCH: DURATION ($DURATION s) leaves no window after the WARMUP ($WARMUP s)" >&2
    exit 1
fi

build_kura
make_bench_dir
keep_logs() {
    if [ -n "$KEEP_LOGS" ] && [ -d "$dir" ]; then
        mkdir -p "$KEEP_LOGS"
        cp "$dir"/*.log "$dir"/wrk-*.txt "$KEEP_LOGS"/ 2>/dev/null || true
    fi
}
trap 'keep_logs; cleanup' EXIT
engine="SQLite"
if [ "$ENGINE" = postgres ]; then
    postgres=$(bash Tests/Support/postgres_server.sh start --owner-pid $$)
    pg_url=$(sed -n 1p <<<"$postgres")
    pg_dir=$(sed -n 2p <<<"$postgres")
    trap 'keep_logs; cleanup; bash Tests/Support/postgres_server.sh stop "$pg_dir" >/dev/null 2>&1 || true' EXIT
    KURA_ARGS="--set store.engine=postgres --set store.url=$pg_url $KURA_ARGS"
    engine="PostgreSQL $(psql "$pg_url" -XAtc 'SHOW server_version')"
elif [ "$ENGINE" != sqlite ]; then
    echo "$BENCH: ENGINE is sqlite or postgres, not $ENGINE" >&2
    exit 1
fi

port=$(free_port)
base=http://127.0.0.1:$port
start_kura "$port" "$dir/kura_data" "$dir/kura.log"
key=$(cat "$dir/kura_data/admin.key")

# --- Seed ----------------------------------------------------------------------------------------------------------
python3 bench/docs.py load --url "$base" --key "$key" --collection items --docs "$ITEMS" --loaders 2 >/dev/null
: >"$dir/tokens"
for i in $(seq "$ACCOUNTS"); do
    email=soak-$i@example.com
    curl -fsS -o /dev/null -X POST "$base/api/admin/users" -H "Authorization: Bearer $key" \
        -H 'Content-Type: application/json' --data-binary "{\"email\":\"$email\",\"password\":\"soak-password\"}"
    curl -fsS -X POST "$base/api/auth/signin" -H 'Content-Type: application/json' \
        --data-binary "{\"email\":\"$email\",\"password\":\"soak-password\"}" |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["user"]["uid"], d["idToken"])' >>"$dir/tokens"
done
while read -r uid _; do
    python3 - "$uid" "$NOTES" >"$dir/notes.json" <<'PY'
import json, sys
uid, notes = sys.argv[1], int(sys.argv[2])
writes = [{"op": "set", "path": f"users/{uid}/notes/n{k}", "data": {"n": k, "text": "seed"}} for k in range(notes)]
print(json.dumps({"writes": writes}))
PY
    curl -fsS -o /dev/null -X POST "$base/api/commit" -H "Authorization: Bearer $key" \
        -H 'Content-Type: application/json' --data-binary @"$dir/notes.json"
done <"$dir/tokens"

echo "kura $("$kura" --version | awk '{print $NF}') on $engine${KURA_ARGS:+ ($KURA_ARGS)} (pid $kura_pid), $(nproc) cores," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "seeded $ITEMS items, $ACCOUNTS accounts with $NOTES notes each; $DURATION s at $CONNECTIONS connections:" \
    "wrk $((CONNECTIONS - LISTENERS)) (bench/soak.lua) + $LISTENERS churning listen streams; windows of $INTERVAL s," \
    "the first $warmup_windows warm-up"

# --- Run -----------------------------------------------------------------------------------------------------------
export SOAK_KEY=$key SOAK_ITEMS=$ITEMS SOAK_NOTES=$NOTES SOAK_TOKENS=$dir/tokens
# The streams churn until the last window has ended (soak.sh creates $dir/stop), so every window has them.
python3 bench/soak_listen.py --port "$port" --tokens "$dir/tokens" --listeners "$LISTENERS" \
    --stop-file "$dir/stop" --log "$dir/listen.log" >"$dir/listen.out" 2>&1 &
listen_pid=$!
pids+=("$listen_pid")

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$kura_pid/status"; }
fd_count() { find "/proc/$kura_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# kura's CPU time so far (user + system), in clock ticks: fields 14 and 15 of /proc/PID/stat, counted after the
# command name's closing parenthesis.
cpu_ticks() { sed 's/.*) //' "/proc/$kura_pid/stat" | awk '{ print $12 + $13 }'; }
ticks_per_second=$(getconf CLK_TCK)
# wrk's duration ($1, like 1.23ms or 2.5s) in ms.
wrk_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) print v / 1000; else if (v ~ /ms$/) print v + 0; else if (v ~ /m$/) print v * 60000;
        else if (v ~ /s$/) print v * 1000; else print v }'
}

bad_total=0 socket_total=0 listen_bad_total=0 requests_total=0
rss=() fds=() p99s=() limited_total=0
cpu_before=$(cpu_ticks)
printf '%-7s %6s %9s %7s %8s %9s %9s  %-34s %6s %11s %8s %5s %5s\n' window t requests req/s req/cpu_s p50_ms \
    p99_ms statuses sockerr listen_ok/bad rss_mb fds load1
for w in $(seq "$windows"); do
    out=$dir/wrk-$w.txt
    started=$(date +%s.%N)
    wrk --latency --timeout "${TIMEOUT}s" -t"$THREADS" -c"$((CONNECTIONS - LISTENERS))" -d"${INTERVAL}s" \
        -s bench/soak.lua "$base" >"$out" 2>&1 &
    wrk_pid=$!
    sleep "$((INTERVAL - 1))"
    kill -0 "$kura_pid" 2>/dev/null || { echo "$BENCH: kura exited; its log:" >&2; tail -20 "$dir/kura.log" >&2; exit 1; }
    rss+=("$(rss_kb)") fds+=("$(fd_count)")
    cpu_now=$(cpu_ticks)
    load1=$(cut -d' ' -f1 /proc/loadavg)
    wait "$wrk_pid" || { echo "$BENCH: wrk failed:" >&2; cat "$out" >&2; exit 1; }
    ended=$(date +%s.%N)
    requests=$(awk '/requests in/ { print $1 }' "$out")
    p50=$(wrk_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
    p99=$(wrk_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    socket=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$out")
    socket=${socket:-0}
    statuses=$(sed -n 's/^soak_status //p' "$out" | tr ' ' '\n' | sort -t= -k1,1n | tr '\n' ' ')
    bad=$(tr ' ' '\n' <<<"$statuses" | awk -F= '$1 != "" && !($1 >= 200 && $1 < 300) && $1 != 429 && $1 != 503 { s += $2 }
        END { print s + 0 }')
    limited=$(tr ' ' '\n' <<<"$statuses" | awk -F= '$1 == 429 || $1 == 503 { s += $2 } END { print s + 0 }')
    read -r listen_ok listen_bad < <(awk -v a="$started" -v b="$ended" '$1 >= a && $1 < b {
        if ($2 == "200") ok++; else if ($2 != "429" && $2 != "503") bad++ } END { print ok + 0, bad + 0 }' \
        "$dir/listen.log")
    if grep -q '^soak_first_bad=' "$out"; then echo "  first bad answer: $(sed -n 's/^soak_first_bad=//p' "$out")"; fi
    bad_total=$((bad_total + bad)) socket_total=$((socket_total + socket)) listen_bad_total=$((listen_bad_total + listen_bad))
    requests_total=$((requests_total + requests)) limited_total=$((limited_total + limited))
    p99s+=("$p99")
    label=$w
    if [ "$w" -le "$warmup_windows" ]; then label="$w(wu)"; fi
    # Requests per second of kura's CPU time: flat while kura keeps its efficiency, whatever else loads the machine
    # (the CPU between this window's sample and the last one, against the window's requests).
    per_cpu=$(awk -v r="$requests" -v t=$((cpu_now - cpu_before)) -v hz="$ticks_per_second" \
        'BEGIN { if (t > 0) printf "%.0f", r / (t / hz); else print "-" }')
    cpu_before=$cpu_now
    printf '%-7s %6s %9s %7.0f %8s %9.2f %9.2f  %-34s %6s %11s %8.1f %5s %5s\n' "$label" "$((w * INTERVAL))" \
        "$requests" "$(awk -v r="$requests" -v s="$INTERVAL" 'BEGIN { print r / s }')" "$per_cpu" "$p50" "$p99" \
        "${statuses% }" "$socket" "$listen_ok/$listen_bad" "$(awk -v k="${rss[-1]}" 'BEGIN { print k / 1024 }')" \
        "${fds[-1]}" "$load1"
done
touch "$dir/stop"
wait "$listen_pid" || true
cat "$dir/listen.out"

# --- Summary -------------------------------------------------------------------------------------------------------
first=$warmup_windows # index of the first window after warm-up (0-based arrays)
rss_drift=$(awk -v a="${rss[$first]}" -v b="${rss[-1]}" 'BEGIN { printf "%.1f", (b - a) / 1024 }')
fds_drift=$((fds[-1] - fds[first]))
errors=$((bad_total + socket_total + listen_bad_total))
echo "requests $requests_total (429/503: $limited_total); answers other than 2xx/429/503: $bad_total;" \
    "socket errors: $socket_total; failed listen streams: $listen_bad_total"
echo "RSS after warm-up $(awk -v k="${rss[$first]}" 'BEGIN { printf "%.1f", k / 1024 }') MB ->" \
    "$(awk -v k="${rss[-1]}" 'BEGIN { printf "%.1f", k / 1024 }') MB (drift $rss_drift MB);" \
    "fds ${fds[$first]} -> ${fds[-1]} (drift $fds_drift)"
echo "p99 per window (ms): ${p99s[*]}"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "soak_errors=$errors rss_drift_mb=$rss_drift fds_drift=$fds_drift p99_first_ms=${p99s[$first]}" \
    "p99_last_ms=${p99s[-1]}"
[ "$errors" -eq 0 ]
