#!/usr/bin/env bash
# The long crash-consistency run (docs/reliability.md, "Crash consistency"): CrashConsistencyTests with 20 cycles
# per engine, one engine after the other, each printing its seed and figures.
#
#   Tests/Support/crash_loop.sh [CYCLES [SEED]]     CYCLES default 20; SEED default random (printed)
#
# ENGINES="sqlite postgres" (default) picks the engines; BUILD_DIR is SwiftPM's scratch path (default .build).
# Exits non-zero if any engine's run failed; the failing seed is in its output (KURA_CRASH_SEED=… reproduces it).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=$PATH:/opt/swift/usr/bin
export KURA_CRASH_CYCLES=${1:-20}
if [ -n "${2:-}" ]; then export KURA_CRASH_SEED=$2; fi
BUILD_DIR=${BUILD_DIR:-.build}
swift build --build-tests --scratch-path "$BUILD_DIR" 2>&1 | tail -n 3
status=0
for engine in ${ENGINES:-sqlite postgres}; do
    started=$(date +%s)
    log=$(mktemp "${TMPDIR:-/tmp}/crash-loop-$engine.XXXXXX")
    if ! UV_THREADPOOL_SIZE=8 swift test --skip-build --scratch-path "$BUILD_DIR" \
        --filter "CrashConsistencyTests.*$engine" >"$log" 2>&1; then
        status=1
    fi
    grep -E '^crash\[|✘|recorded an issue|passed after|failed after' "$log" || true
    echo "crash_loop.sh: the whole output is in $log"
    echo "crash_loop.sh: $engine took $(( $(date +%s) - started )) s"
done
exit $status
