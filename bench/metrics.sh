#!/usr/bin/env bash
# Benchmark, not a test: what the request metrics cost. bench/http.sh's health rounds (kura's GET /api/health
# against nginx serving the same bytes) with two kura servers side by side, one counting requests (metrics.enabled,
# the default) and one not (metrics.enabled=false), measured in turn in the same rounds. Prints a line per round,
# the medians, each kura's ratio to nginx, and last `metrics_ratio=<kura with metrics / kura without, req/s>`.
#
# Usage: bench/metrics.sh   (needs nginx-light, wrk and curl: `make bench` installs them)
# Environment: ROUNDS=5 DURATION=10 (seconds per side per round) CONNECTIONS=64 THREADS=2 BUILD_DIR=.build
#              KURA_ARGS="--set http.eventLoops=2" adds flags to both kura servers; SCRAPE=1 scrapes /metrics
#              once a second during the rounds, as Prometheus would (more often than its usual 15 s).
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
SCRAPE=${SCRAPE:-1}
WARMUP=2

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl "$nginx"

build_kura
make_bench_dir

on_port=$(free_port)
off_port=$(free_port_except "$on_port")
nginx_port=$(free_port_except "$on_port" "$off_port")
base_args=$KURA_ARGS
KURA_ARGS="$base_args --set metrics.enabled=true"
start_kura "$on_port" "$dir/on_data" "$dir/kura-on.log"
KURA_ARGS="$base_args --set metrics.enabled=false"
start_kura "$off_port" "$dir/off_data" "$dir/kura-off.log"
KURA_ARGS=$base_args

mkdir -p "$dir/www/api"
curl -fsS -o "$dir/www/api/health" "http://127.0.0.1:$on_port/api/health"
start_nginx "$nginx_port" "http://127.0.0.1:$nginx_port/api/health"
same_response "http://127.0.0.1:$on_port/api/health" "http://127.0.0.1:$nginx_port/api/health"
same_response "http://127.0.0.1:$off_port/api/health" "http://127.0.0.1:$nginx_port/api/health"

# The server without metrics must not have them, or the comparison means nothing.
if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$off_port/metrics")" != 404 ]; then
    echo "$BENCH: the server started with metrics.enabled=false serves /metrics" >&2
    exit 1
fi
admin_key=$(cat "$dir/on_data/admin.key")
scrape() { curl -fsS -H "Authorization: Bearer $admin_key" "http://127.0.0.1:$on_port/metrics"; }
scrape >/dev/null

if [ "$SCRAPE" != 0 ]; then
    (while sleep 1; do scrape >/dev/null 2>&1 || true; done) &
    pids+=($!)
fi

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} with metrics (kura_on) and without" \
    "(kura_off) vs nginx $("$nginx" -v 2>&1 | sed 's|.*/||') (2 workers), all logging every request;" \
    "scraped every second: $([ "$SCRAPE" != 0 ] && echo yes || echo no)"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "$(nproc) cores"

wrk_kura_on=("http://127.0.0.1:$on_port/api/health")
wrk_kura_off=("http://127.0.0.1:$off_port/api/health")
wrk_nginx=("http://127.0.0.1:$nginx_port/api/health")
run_sides "" kura_on kura_off nginx

counted=$(scrape | awk '/^kura_http_requests_total\{.*route="\/api\/health".*code="200"/ { print $NF }')
echo "health requests the metrics counted: $counted"
for side in kura_on kura_off nginx; do
    r=rps_$side p=p99_$side
    echo "median  $side ${!r} req/s  p99 ${!p} ms"
done

status=0
sides_clean kura_on kura_off nginx || status=1
echo "kura_on_health_ratio=$(ratio "$rps_kura_on" "$rps_nginx")"
echo "kura_off_health_ratio=$(ratio "$rps_kura_off" "$rps_nginx")"
echo "metrics_p99_ratio=$(ratio "$p99_kura_on" "$p99_kura_off")"
echo "metrics_ratio=$(ratio "$rps_kura_on" "$rps_kura_off")"
exit "$status"
