#!/usr/bin/env bash
# Benchmark, not a test: kura's GET /api/health against nginx serving the same 33 bytes as a static file, then
# both serving the same 1 KB and 100 KB static files (kura with --public, its static hosting). Both servers
# access-log every request. wrk measures them in turn, several rounds each, and the script prints a line per round,
# the medians, then `static_1k_ratio=` and `static_100k_ratio=<kura/nginx req/s>`, `p99_ratio=<kura/nginx>` and,
# last, `http_health_ratio=<kura/nginx req/s>`.
#
# Usage: bench/http.sh   (or `make bench`, which installs nginx-light, wrk and curl first)
# Environment: ROUNDS=5 DURATION=10 (seconds per side per round) CONNECTIONS=64 THREADS=2 BUILD_DIR=.build
#              KURA_ARGS="--set http.eventLoops=2" adds flags to `kura serve`; STATIC=0 skips the static files.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
STATIC=${STATIC:-1}
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

# The static files both serve: the same bytes from the same directory (kura hosts it with --public).
mkdir -p "$dir/www/api" "$dir/www/static"
head -c 768 /dev/urandom | base64 -w 76 | head -c 1024 >"$dir/www/static/1k.txt"
head -c 76800 /dev/urandom | base64 -w 76 | head -c 102400 >"$dir/www/static/100k.txt"
KURA_ARGS="--public $dir/www $KURA_ARGS"
start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"

# nginx serves kura's own health body, so both sides send the same bytes.
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
health=("$rps_kura" "$rps_nginx" "$p99_kura" "$p99_nginx" "$errors_kura" "$errors_nginx")

# The same static files from both (no Accept-Encoding, so neither compresses); sets static_<size>_ratio.
static_errors=0
if [ "$STATIC" != 0 ]; then
    for size in 1k 100k; do
        path=/static/$size.txt
        same_response "http://127.0.0.1:$kura_port$path" "http://127.0.0.1:$nginx_port$path"
        cmp -s <(curl -fsS "http://127.0.0.1:$kura_port$path") "$dir/www$path" ||
            { echo "$BENCH: kura serves $path with other bytes" >&2; exit 1; }
        echo "static $path ($(wc -c <"$dir/www$path") bytes, text/plain):"
        kura_wrk=("http://127.0.0.1:$kura_port$path")
        nginx_wrk=("http://127.0.0.1:$nginx_port$path")
        run_rounds "static-$size-"
        echo "median  kura $rps_kura req/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"
        declare "static_${size}_ratio=$(ratio "$rps_kura" "$rps_nginx")"
        static_errors=$((static_errors + errors_kura + errors_nginx))
    done
fi
read -r rps_kura rps_nginx p99_kura p99_nginx errors_kura errors_nginx <<<"${health[*]}"

sleep 1.1 # nginx flushes its log buffer every second
echo "access log lines: kura $(wc -l <"$dir/kura.log"), nginx $(wc -l <"$dir/nginx/access.log")"
echo "health median  kura $rps_kura req/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"

status=0
if [ "$static_errors" -gt 0 ]; then
    echo "WARNING: $static_errors socket errors or non-2xx responses on the static files" >&2
    status=1
fi
sides_clean kura nginx || status=1
if [ "$STATIC" != 0 ]; then
    echo "static_1k_ratio=$static_1k_ratio"
    echo "static_100k_ratio=$static_100k_ratio"
fi
echo "p99_ratio=$(ratio "$p99_kura" "$p99_nginx")"
echo "http_health_ratio=$(ratio "$rps_kura" "$rps_nginx")"
exit "$status"
