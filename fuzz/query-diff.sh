#!/bin/bash
# The server's query matcher against kura.js's (docs/reliability.md, "Fuzzing"): runs the query harness over its
# corpus (fuzz/corpus/query and what fuzz/run.sh found in .build/fuzz/corpus/query) plus RUNS fuzzed inputs
# (default 20000, fixed seed), recording each query, its documents and the server's verdicts, then has Node run
# kura.js's matchesQuery on the same records (fuzz/query-diff.mjs). Exits non-zero on any disagreement.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20000}
fuzz/build.sh query 2> >(grep -v 'ld.gold: warning' >&2)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p .build/fuzz/corpus/query
SWIFT_BACKTRACE=enable=no KURA_FUZZ_RECORD="$scratch/records.jsonl" .build/fuzz/bin/query-fuzz -seed=1 -runs="$RUNS" \
    -max_len=4096 "$scratch" .build/fuzz/corpus/query fuzz/corpus/query >"$scratch/fuzz.log" 2>&1 ||
    { tail -n 30 "$scratch/fuzz.log"; exit 1; }
node fuzz/query-diff.mjs "$scratch/records.jsonl"
