#!/bin/bash
# The short fuzzing step of `make test`: builds every harness (cached, fuzz/build.sh) and runs each for
# FUZZ_SECONDS (default 30) with a fixed seed, starting from the seeds and past findings in fuzz/corpus/NAME.
# Nothing is written to the repository: new inputs go to a temporary directory. Exits non-zero if any harness
# finds a crash or a property failure (its input is then in .build/fuzz/findings/NAME/).
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-30}
fuzz/build.sh 2> >(grep -v 'ld.gold: warning' >&2) || exit 1
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0:malloc_context_size=128"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for name in $(cat fuzz/harnesses.txt); do
    mkdir -p "$scratch/$name" ".build/fuzz/findings/$name"
    log=$scratch/$name.log
    if ".build/fuzz/bin/$name-fuzz" -seed=1 -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=".build/fuzz/findings/$name/" \
        "$scratch/$name" "fuzz/corpus/$name" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        echo "fuzz $name: ok, $runs runs ($speed/s)"
    else
        status=1
        echo "fuzz $name: FAILED"
        # The failure's whole message (a property's names what was expected and what came), then the input itself
        # in base64, so that a failure seen only in CI's output can be rerun: decode it into a file and pass that
        # file to the harness.
        sed -n '/^PROPERTY FAILED/,/^==[0-9]*==/{/^==[0-9]*==/!p;}' "$log" | head -n 60
        grep -E 'ERROR:|SUMMARY|Test unit written' "$log" | head -n 20
        unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        [ -n "$unit" ] && [ -f "$unit" ] && echo "input (base64): $(base64 -w0 "$unit")"
    fi
done
exit $status
