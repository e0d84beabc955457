#!/usr/bin/env bash
# Benchmark, not a test: kura's GET /api/health against nginx serving the same 33 bytes as a static file.
# Both servers access-log every request. wrk measures them in turn, several rounds each, and the script prints a
# line per round, the medians, then `p99_ratio=<kura/nginx>` and, last, `http_health_ratio=<kura/nginx req/s>`.
#
# Usage: bench/http.sh   (or `make bench`, which installs nginx-light, wrk and curl first)
# Environment: ROUNDS=5 DURATION=10 (seconds per side per round) CONNECTIONS=64 THREADS=2 BUILD_DIR=.build
#              KURA_ARGS="--set http.eventLoops=2" adds flags to `kura serve`.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
WARMUP=2

cd "$(dirname "$0")/.."
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in swift wrk curl "$nginx"; do
    command -v "$tool" >/dev/null || { echo "bench/http.sh: $tool not found; 'make bench' installs it" >&2; exit 1; }
done

swift build -c release --scratch-path "$BUILD_DIR"
kura=$BUILD_DIR/release/kura

dir=$(mktemp -d /tmp/kura-bench.XXXXXX)
chmod 755 "$dir" # nginx workers run as an unprivileged user and read $dir/www
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A port nothing answers on (racy in theory, fine on a bench machine).
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}

# Waits until $2 answers; if the server ($1 names it) exits first, shows its log and fails.
wait_for() {
    local name=$1 url=$2 pid=$3 log=$4
    for _ in $(seq 100); do
        curl -fsS -o /dev/null "$url" 2>/dev/null && return
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "bench/http.sh: $name did not answer on $url; its log:" >&2
    tail -20 "$log" >&2
    exit 1
}

kura_port=$(free_port)
nginx_port=$(free_port)
while [ "$nginx_port" = "$kura_port" ]; do nginx_port=$(free_port); done
kura_url=http://127.0.0.1:$kura_port/api/health
nginx_url=http://127.0.0.1:$nginx_port/api/health

# kura on its default log level (info), so the access log is on.
# shellcheck disable=SC2086 # KURA_ARGS holds several flags
"$kura" serve --host 127.0.0.1 --port "$kura_port" --data "$dir/kura_data" $KURA_ARGS >"$dir/kura.log" 2>&1 &
pids+=($!)
wait_for kura "$kura_url" "$!" "$dir/kura.log"

# nginx serves kura's own health body, so both sides send the same bytes.
mkdir -p "$dir/nginx" "$dir/www/api"
curl -fsS -o "$dir/www/api/health" "$kura_url"
chmod -R a+rX "$dir/www"
sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$nginx_port|g" bench/nginx.conf.template >"$dir/nginx.conf"
"$nginx" -p "$dir/nginx/" -c "$dir/nginx.conf" -e "$dir/nginx/error.log" >"$dir/nginx/stdout.log" 2>&1 &
pids+=($!)
wait_for nginx "$nginx_url" "$!" "$dir/nginx/error.log"

# Same body and content type from both, or the comparison means nothing.
response() { curl -fsS -D - "$1" | tr -d '\r' | grep -i -e '^content-type:' -e '^{'; }
if [ "$(response "$kura_url")" != "$(response "$nginx_url")" ]; then
    echo "bench/http.sh: kura and nginx answer differently:" >&2
    diff <(response "$kura_url") <(response "$nginx_url") >&2 || true
    exit 1
fi

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} vs nginx $("$nginx" -v 2>&1 | sed 's|.*/||') (2 workers)," \
    "both logging every request; $(wc -c <"$dir/www/api/health")-byte body"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "$(nproc) cores"

# Runs wrk against $2 for $3 seconds; prints "requests/s p99-in-ms errors".
measure() {
    local out=$dir/wrk-$1.txt
    wrk --latency -t"$THREADS" -c"$CONNECTIONS" -d"$3s" "$2" >"$out"
    awk '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /m$/) return v * 60000
            if (v ~ /s$/) return v * 1000
            return v
        }
        $1 == "99%" { p99 = ms($2) }
        /^Requests\/sec:/ { rps = $2 }
        /Socket errors:/ { errors += $4 + $6 + $8 + $10 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        END { printf "%.0f %.2f %d\n", rps, p99, errors }
    ' "$out"
}

measure kura-warmup "$kura_url" "$WARMUP" >/dev/null
measure nginx-warmup "$nginx_url" "$WARMUP" >/dev/null

# Per side: the rounds' req/s and p99 (space-separated), the error count, and the current round's line.
declare -A url=([kura]=$kura_url [nginx]=$nginx_url) rps p99 errors=([kura]=0 [nginx]=0) line
for round in $(seq "$ROUNDS"); do
    # Alternate who goes first, so a drift in machine load hits both sides alike.
    order="kura nginx"
    if [ $((round % 2)) -eq 0 ]; then order="nginx kura"; fi
    for side in $order; do
        read -r r p e < <(measure "$side" "${url[$side]}" "$DURATION")
        rps[$side]+="$r " p99[$side]+="$p " errors[$side]=$((errors[$side] + e))
        line[$side]="$r req/s  p99 $p ms"
        if [ "$e" -gt 0 ]; then line[$side]+="  ($e errors)"; fi
    done
    echo "round $round/$ROUNDS  kura ${line[kura]}  |  nginx ${line[nginx]}"
done

# Median of space-separated numbers on stdin, printed with the printf format $1.
median() {
    tr ' ' '\n' | grep . | sort -g |
        awk -v f="$1\n" '{ v[NR] = $1 } END { printf f, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for side in kura nginx; do
    declare "rps_$side=$(median %.0f <<<"${rps[$side]}")" "p99_$side=$(median %.2f <<<"${p99[$side]}")"
done
sleep 1.1 # nginx flushes its log buffer every second
echo "access log lines: kura $(wc -l <"$dir/kura.log"), nginx $(wc -l <"$dir/nginx/access.log")"
echo "median  kura $rps_kura req/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"

status=0
for side in kura nginx; do
    if [ "${errors[$side]}" -gt 0 ]; then
        echo "WARNING: $side had ${errors[$side]} socket errors or non-2xx responses; the figures are not comparable" >&2
        status=1
    fi
done
awk -v k="$p99_kura" -v n="$p99_nginx" 'BEGIN { printf "p99_ratio=%.2f\n", k / n }'
awk -v k="$rps_kura" -v n="$rps_nginx" 'BEGIN { printf "http_health_ratio=%.2f\n", k / n }'
exit "$status"
