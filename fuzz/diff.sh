#!/bin/bash
# The server and the Swift SDK against kura.js under Node (docs/reliability.md, "Fuzzing"): runs the query and sse
# harnesses over their corpora (fuzz/corpus/NAME and what fuzz/run.sh found in .build/fuzz/corpus/NAME) plus RUNS
# fuzzed inputs for the query harness (default 200000, fixed seed; most do not decode to a query) and RUNS/10 for the
# sse harness (every input is a stream), recording what the Swift side decided, then has Node decide the same
# inputs with kura.js: the server's QueryMatcher against matchesQuery (fuzz/query-diff.mjs), the Swift SDK's event
# stream parser against kura.js's EventStreamParser (fuzz/sse-diff.mjs). Exits non-zero on any disagreement.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-200000}
fuzz/build.sh query sse 2> >(grep -v 'ld.gold: warning' >&2)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SWIFT_BACKTRACE=enable=no
status=0
for name in query sse; do
    runs=$([ "$name" = query ] && echo "$RUNS" || echo $((RUNS / 10)))
    mkdir -p ".build/fuzz/corpus/$name" "$scratch/$name"
    KURA_FUZZ_RECORD="$scratch/$name.jsonl" ".build/fuzz/bin/$name-fuzz" -seed=1 -runs="$runs" -max_len=4096 \
        "$scratch/$name" ".build/fuzz/corpus/$name" "fuzz/corpus/$name" >"$scratch/$name.log" 2>&1 ||
        { tail -n 30 "$scratch/$name.log"; status=1; continue; }
    echo -n "$name: "
    node "fuzz/$name-diff.mjs" "$scratch/$name.jsonl" || status=1
done
exit $status
