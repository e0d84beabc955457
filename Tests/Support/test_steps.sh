#!/usr/bin/env bash
# The steps of `make test` after the build, each run to its end even when an earlier one failed, with a summary at
# the bottom: which steps failed and the lines that say why (Swift Testing's ✘ lines, a crash's signal, a browser
# test's FAIL, a fuzz property's expected and got, and its input). CI keeps only the end of a long log, so the
# reason has to be there.
#
# Environment (the Makefile sets these): BUILD_DIR, SDK_SUITES, KURA_TEST_PYTHON.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD_DIR:=.build}" "${SDK_SUITES:?}" "${KURA_TEST_PYTHON:?}"
logs="$BUILD_DIR/test-logs"
rm -rf "$logs" && mkdir -p "$logs"
failed=()

# step NAME COMMAND...: runs COMMAND, its output shown and kept in $logs/NAME.log; a failure is remembered.
step() {
    local name=$1
    shift
    echo "== make test: $name"
    if ! "$@" 2>&1 | tee "$logs/$name.log"; then failed+=("$name"); fi
}

# libuv's pool size set up front, so no test server calls setenv while other threads read the environment.
export UV_THREADPOOL_SIZE=8
# The SDK's tests (and the places app's, which also call a server through the SDK) run in a process of their own:
# many server tests block a thread of Swift's cooperative pool (one per core) on sockets, which starved the SDK's
# async tests past their timeouts on a 2-core CI.
step server-tests swift test --skip-build --scratch-path "$BUILD_DIR" --skip "$SDK_SUITES"
step sdk-tests swift test --skip-build --scratch-path "$BUILD_DIR" --filter "$SDK_SUITES"
# The Swift SDK's portability checks and its own manifest built alone (docs/swift-sdk.md).
step sdk-portability sdk/swift/check.sh
# Every module a target imports is declared in Package.swift.
step imports python3 Tests/Support/check_imports.py
# Every @unchecked Sendable says why, and there are no more of them than the ceiling.
step sendable python3 Tests/Support/check_unchecked.py
# kura.js in headless Chromium against the debug binary the test build made.
step browser "$KURA_TEST_PYTHON" Tests/Browser/run.py --kura "$BUILD_DIR/debug/kura" \
    --screenshots "$BUILD_DIR/browser-screenshots"
# Each libFuzzer harness for 30 s with a fixed seed from its corpus (docs/reliability.md, "Fuzzing"), then the
# server's query matcher and the Swift SDK's event stream parser against kura.js's under Node.
step fuzz fuzz/check.sh
step fuzz-diff fuzz/diff.sh

if [ ${#failed[@]} -eq 0 ]; then
    echo "== make test: every step passed (logs in $logs)"
    exit 0
fi
echo
echo "== make test: ${#failed[@]} step(s) failed: ${failed[*]} (whole logs in $logs)"
for name in "${failed[@]}"; do
    echo "-- $name:"
    reasons=$(grep -aE '✘|FAIL|Traceback|[Ee]rror:|[Ff]atal|signal|disagree|^expected: |^got: |^input \(base64\)' "$logs/$name.log" | grep -av '^[◇✔↳]' | head -40)
    if [ -n "$reasons" ]; then echo "$reasons"; else tail -n 15 "$logs/$name.log"; fi
done
exit 1
