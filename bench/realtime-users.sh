#!/usr/bin/env bash
# Benchmark, not a test: realtime fan-out to listeners of many different users against one user's (docs/realtime.md,
# "Shared views"). Runs bench/realtime.sh twice with a rule that reads the document (RULE=document): first every
# listener signed in as one user (LISTEN_AS=user: one rule check and one view update per change, shared), then
# as USERS different users (LISTEN_AS=users: one per listener). The last line is
# `realtime_users_ratio p50=… p99=… fanout=…`, many users over one user (more is slower).
#
# Usage: bench/realtime-users.sh   (what bench/realtime.sh needs, plus python3)
#        LISTENERS=100 USERS=100 IDLE=1000 WRITES=200 bench/realtime-users.sh   (a quick try)
# Environment: as bench/realtime.sh; USERS defaults to LISTENERS (every listener its own user; the IDLE streams
#              take the same users in turn).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for mode in user users; do
    echo "== LISTEN_AS=$mode RULE=document"
    LISTEN_AS=$mode RULE=document bench/realtime.sh | tee "$dir/$mode.txt"
done
summary() { grep '^realtime_summary' "$dir/$1.txt" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}' if b else 'n/a')" "$1" "$2"; }
echo "realtime_users_ratio p50=$(ratio "$(summary users p50_ms)" "$(summary user p50_ms)")" \
    "p99=$(ratio "$(summary users p99_ms)" "$(summary user p99_ms)")" \
    "fanout=$(ratio "$(summary users fanout_10k_ms)" "$(summary user fanout_10k_ms)")"
