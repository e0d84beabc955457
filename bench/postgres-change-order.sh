#!/usr/bin/env bash
# Benchmark, not a test: what keeping the change log in commit order costs on PostgreSQL, and what one libpq round
# trip costs (docs/design/scaling.md, "Change-log order on PostgreSQL"). pgbench (libpq, C) against a throwaway server
# from Tests/Support/postgres_server.sh (fsync on), each case for DURATION seconds at each client count in CLIENTS:
#   roundtrip  SELECT 1, prepared, one client                            -> latency of one round trip
#   sequence   BEGIN; INSERT change (bigserial); COMMIT                  -> no order guarantee (the baseline)
#   counter    BEGIN; INSERT document; UPDATE counter RETURNING; INSERT change; COMMIT   (ChangeSequence)
#   advisory   BEGIN; INSERT document; pg_advisory_xact_lock; INSERT change (bigserial); COMMIT
# Prints one line per case and client count: tps and mean latency.
#
# Usage: bench/postgres-change-order.sh   Environment: DURATION=10 CLIENTS="1 4 16" PG_BIN=/usr/lib/postgresql/15/bin
set -euo pipefail

DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-1 4 16}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
here=$(cd "$(dirname "$0")" && pwd)

{ read -r url; read -r dir; } < <("$here/../Tests/Support/postgres_server.sh" start --owner-pid $$)
work=$(mktemp -d)
trap '"$here/../Tests/Support/postgres_server.sh" stop "$dir"; rm -rf "$work"' EXIT

"$PG_BIN/psql" -q "$url" <<'SQL'
CREATE TABLE documents (id bigserial PRIMARY KEY, data text);
CREATE TABLE change_log_sequence (seq bigserial PRIMARY KEY, data text);
CREATE TABLE change_log_counter (seq bigint PRIMARY KEY, data text);
CREATE TABLE kura_change_sequences (name text PRIMARY KEY, last_value bigint NOT NULL DEFAULT 0);
INSERT INTO kura_change_sequences VALUES ('documents', 0);
SQL

echo 'SELECT 1;' >"$work/roundtrip.sql"
cat >"$work/sequence.sql" <<'SQL'
BEGIN;
INSERT INTO documents (data) VALUES ('x');
INSERT INTO change_log_sequence (data) VALUES ('x');
COMMIT;
SQL
cat >"$work/counter.sql" <<'SQL'
BEGIN;
INSERT INTO documents (data) VALUES ('x');
UPDATE kura_change_sequences SET last_value = last_value + 1 WHERE name = 'documents' RETURNING last_value AS seq \gset
INSERT INTO change_log_counter VALUES (:seq, 'x');
COMMIT;
SQL
cat >"$work/advisory.sql" <<'SQL'
BEGIN;
INSERT INTO documents (data) VALUES ('x');
SELECT pg_advisory_xact_lock(42);
INSERT INTO change_log_sequence (data) VALUES ('x');
COMMIT;
SQL

run() {  # case clients
    local out
    out=$("$PG_BIN/pgbench" -n -M prepared -c "$2" -j "$(( $2 < 4 ? $2 : 4 ))" -T "$DURATION" -f "$work/$1.sql" "$url" 2>&1)
    printf '%-10s clients=%-3s tps=%-10s latency_ms=%s\n' "$1" "$2" \
        "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")" "$(sed -n 's/^latency average = \([0-9.]*\).*/\1/p' <<<"$out")"
}

run roundtrip 1
for clients in $CLIENTS; do
    for case in sequence counter advisory; do run "$case" "$clients"; done
done
