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
source bench/lib.sh
require_tools swift wrk curl "$nginx"

build_kura
make_bench_dir

kura_port=$(free_port)
nginx_port=$(free_port_except "$kura_port")
kura_url=http://127.0.0.1:$kura_port/api/health
nginx_url=http://127.0.0.1:$nginx_port/api/health

start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"

# nginx serves kura's own health body, so both sides send the same bytes.
mkdir -p "$dir/www/api"
curl -fsS -o "$dir/www/api/health" "$kura_url"
start_nginx "$nginx_port" "$nginx_url"

# Same body and content type from both, or the comparison means nothing.
same_response "$kura_url" "$nginx_url"

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} vs nginx $("$nginx" -v 2>&1 | sed 's|.*/||') (2 workers)," \
    "both logging every request; $(wc -c <"$dir/www/api/health")-byte body"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "$(nproc) cores"

kura_wrk=("$kura_url")
nginx_wrk=("$nginx_url")
run_rounds ""

sleep 1.1 # nginx flushes its log buffer every second
echo "access log lines: kura $(wc -l <"$dir/kura.log"), nginx $(wc -l <"$dir/nginx/access.log")"
echo "median  kura $rps_kura req/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"

status=0
for side in kura nginx; do
    errors=errors_$side
    if [ "${!errors}" -gt 0 ]; then
        echo "WARNING: $side had ${!errors} socket errors or non-2xx responses; the figures are not comparable" >&2
        status=1
    fi
done
echo "p99_ratio=$(ratio "$p99_kura" "$p99_nginx")"
echo "http_health_ratio=$(ratio "$rps_kura" "$rps_nginx")"
exit "$status"
