#!/bin/bash
# A long run of one harness (docs/reliability.md, "Fuzzing").
# Usage: fuzz/run.sh NAME [MINUTES=10] [libFuzzer flags…]      e.g. fuzz/run.sh http 60 -jobs=2 -workers=2
#
# Builds .build/fuzz/bin/NAME-fuzz (fuzz/build.sh), then fuzzes with fuzz/corpus/NAME (the seeds in the repository)
# and .build/fuzz/corpus/NAME (what earlier runs found; kept between runs). A crash or property failure is written to
# .build/fuzz/findings/NAME/: add it to fuzz/corpus/NAME with a name saying what it was once the bug is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: fuzz/run.sh NAME [MINUTES] [libFuzzer flags…]; NAME is one of: $(cat fuzz/harnesses.txt)" >&2; exit 2; }
NAME=$1
MINUTES=${2:-10}
shift $(($# >= 2 ? 2 : 1))
grep -qx "$NAME" fuzz/harnesses.txt || { echo "fuzz/run.sh: no harness '$NAME' (fuzz/harnesses.txt)" >&2; exit 2; }
fuzz/build.sh "$NAME" 2> >(grep -v 'ld.gold: warning' >&2)
mkdir -p ".build/fuzz/corpus/$NAME" ".build/fuzz/findings/$NAME"
# Swift's own crash handler and AddressSanitizer's would both catch the failure; libFuzzer needs the latter.
export SWIFT_BACKTRACE=enable=no
# Foundation (Linux) leaks the partially built NSRegularExpression when a pattern fails to compile; not Kura's.
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0:malloc_context_size=128"
exec ".build/fuzz/bin/$NAME-fuzz" -max_total_time=$((MINUTES * 60)) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=".build/fuzz/findings/$NAME/" "$@" \
    ".build/fuzz/corpus/$NAME" "fuzz/corpus/$NAME"
