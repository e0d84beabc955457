#!/usr/bin/env bash
# Runs the Swift test suites N times in a row, each run beside a CPU hog (one busy process per core), and prints
# one line per run and a summary: the check that the suite does not flake on a loaded machine (docs/reliability.md).
#
#   Tests/Support/repeat_suite.sh [RUNS] [--no-hog]
#
# Builds the tests once into BUILD_DIR (default .build). Each run's full output is kept in LOG_DIR (default
# .build/repeat-logs). Exits non-zero if any run failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
hog=1
[ "${2:-}" = "--no-hog" ] && hog=0
build=${BUILD_DIR:-.build}
logs=${LOG_DIR:-$build/repeat-logs}
mkdir -p "$logs"
# What `make test` installs first: the test packages and .venv-test (aiosmtpd, selenium, firebase-admin).
make --no-print-directory deps-test >/dev/null
swift build --build-tests --scratch-path "$build" >/dev/null

hogs=()
stop_hogs() { for pid in "${hogs[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done; hogs=(); }
trap stop_hogs EXIT
if [ "$hog" = 1 ]; then
    for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=($!); done
fi

# The SDK suites run in their own process, as `make test` runs them (the Makefile's SDK_SUITES is the one list).
sdk=$(sed -n 's/^SDK_SUITES := //p' Makefile)

failed=0
for i in $(seq "$runs"); do
    start=$(date +%s)
    status=ok
    UV_THREADPOOL_SIZE=8 swift test --skip-build --scratch-path "$build" --skip "$sdk" \
        >"$logs/server-$i.log" 2>&1 || status=failed
    UV_THREADPOOL_SIZE=8 swift test --skip-build --scratch-path "$build" --filter "$sdk" \
        >"$logs/sdk-$i.log" 2>&1 || status=failed
    failures=$(grep -h '✘ Test ' "$logs/server-$i.log" "$logs/sdk-$i.log" | grep -E 'failed after' | cut -c1-160 || true)
    echo "run $i: $status in $(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg)${failures:+; $failures}"
    [ "$status" = ok ] || failed=$((failed + 1))
done
echo "$((runs - failed)) passed, $failed failed"
[ "$failed" = 0 ]
