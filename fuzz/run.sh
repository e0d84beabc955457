#!/bin/sh
# Builds the rules fuzzer (KuraRules sources + RulesFuzz.swift, instrumented) and runs it.
# Usage: fuzz/run.sh [seconds=60] [extra libFuzzer flags…]
set -eu
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-60}"
[ $# -gt 0 ] && shift
OUT=fuzz/.build
mkdir -p "$OUT" fuzz/findings fuzz/work-corpus

# KuraCore (the JSON value types) as a plain static library; it is not the code under test.
swiftc -O -parse-as-library -module-name KuraCore -emit-module -emit-module-path "$OUT/KuraCore.swiftmodule" \
    -emit-library -static -o "$OUT/libKuraCore.a" -I Sources/CSodium Sources/KuraCore/*.swift

# The rules sources and the harness in one instrumented module.
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name KuraRulesFuzz \
    -I "$OUT" -I Sources/CSodium -L "$OUT" -lKuraCore -lsodium \
    Sources/KuraRules/*.swift fuzz/RulesFuzz.swift -o "$OUT/rules-fuzz"

# New inputs go to fuzz/work-corpus (git-ignored scratch); fuzz/corpus holds the hand-written seeds.
# Foundation on Linux leaks when NSRegularExpression rejects a pattern (see RegexCache.swift); not ours to fix.
LSAN_OPTIONS="suppressions=fuzz/lsan.supp:print_suppressions=0" \
"$OUT/rules-fuzz" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=fuzz/findings/ "$@" fuzz/work-corpus fuzz/corpus
