#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests and benches: Debian's binaries, a temp directory, a free loopback port,
# trust authentication, run as a non-root user (PostgreSQL refuses to run as root; as root this creates the system
# user kura-test if missing and runs the server as it).
#
#   postgres_server.sh start [--owner-pid PID]   prints two lines: the connection URL, then the server's directory
#                                                 (--owner-pid: stop and clean up by itself once PID exits)
#   postgres_server.sh stop DIRECTORY            stops that server and removes its directory
#   postgres_server.sh standby DIRECTORY [--owner-pid PID]
#                                                 a streaming-replication standby of the server in DIRECTORY
#                                                 (pg_basebackup -R): prints its URL and directory like start
#   postgres_server.sh promote DIRECTORY         promotes that standby to a primary (waits until it accepts writes)
#   postgres_server.sh kill DIRECTORY            stops that server at once (pg_ctl -m immediate: like a crash),
#                                                 keeping its directory
#   postgres_server.sh restart DIRECTORY PORT    starts that (killed) server again on PORT, where it was, and waits
#                                                 until it accepts connections (after its crash recovery)
#
# PG_BIN overrides the binaries' directory (default /usr/lib/postgresql/15/bin). KURA_TEST_POSTGRES_FSYNC=off
# trades durability for speed (default on, so timings mean what they would in production).
# KURA_TEST_POSTGRES_OPTIONS adds server flags, e.g. "-c shared_preload_libraries=pg_stat_statements" to see
# where a bench's statements spend their time (docs/design/scaling.md, "Where a create's time goes").
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
RUN_USER=kura-test
DATABASE=kura_test
ROLE=kura

die() { echo "postgres_server.sh: $*" >&2; exit 1; }

# Runs a command as the server's user (itself when not root).
as_server_user() {
    if [ "$(id -u)" = 0 ]; then runuser -u "$RUN_USER" -- "$@"; else "$@"; fi
}

free_port() {
    if command -v python3 >/dev/null; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    else
        echo $((20000 + RANDOM % 40000))
    fi
}

stop() {
    local dir=$1
    [ -d "$dir" ] || return 0
    [ -f "$dir/data/PG_VERSION" ] || die "$dir is not a directory this script made"
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

start() {
    local owner_pid=""
    if [ "${1:-}" = "--owner-pid" ]; then owner_pid=${2:?--owner-pid needs a process id}; fi
    [ -x "$PG_BIN/initdb" ] || die "no PostgreSQL binaries in $PG_BIN (apt-get install postgresql)"
    if [ "$(id -u)" = 0 ] && ! id "$RUN_USER" >/dev/null 2>&1; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$RUN_USER"
    fi
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/kura-postgres.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown "$RUN_USER:" "$dir"
    as_server_user "$PG_BIN/initdb" -D "$dir/data" -U "$ROLE" --auth=trust --encoding=UTF8 --locale=C --no-sync \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; die "initdb failed"; }
    local port
    port=$(start_on_free_port "$dir") || { cat "$dir/server.log" >&2; stop "$dir"; die "the server did not start"; }
    as_server_user "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U "$ROLE" "$DATABASE" \
        || { stop "$dir"; die "createdb failed"; }
    if [ -n "$owner_pid" ]; then
        # Detached, with no inherited descriptors, so a caller reading our output sees it end.
        setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; "$2" stop "$3"' \
            watchdog "$owner_pid" "$(readlink -f "$0")" "$dir" </dev/null >/dev/null 2>&1 &
    fi
    echo "postgresql://$ROLE@127.0.0.1:$port/$DATABASE"
    echo "$dir"
}

# The port of the running server in directory $1 (the fourth line of postmaster.pid).
port_of() {
    sed -n 4p "$1/data/postmaster.pid"
}

# Starts the server whose data directory is $1/data on a free port; prints the port.
start_on_free_port() {
    local dir=$1 port attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        if as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start -o \
            "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=${KURA_TEST_POSTGRES_FSYNC:-on} ${KURA_TEST_POSTGRES_OPTIONS:-}" \
            >/dev/null 2>&1; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

standby() {
    local primary=${1:?standby needs the directory of the primary}
    shift
    local owner_pid=""
    if [ "${1:-}" = "--owner-pid" ]; then owner_pid=${2:?--owner-pid needs a process id}; fi
    [ -f "$primary/data/postmaster.pid" ] || die "no server is running in $primary"
    local primary_port dir port
    primary_port=$(port_of "$primary")
    dir=$(mktemp -d "${TMPDIR:-/tmp}/kura-postgres.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown "$RUN_USER:" "$dir"
    # -R writes primary_conninfo and standby.signal: the copy starts as a hot standby streaming from the primary.
    as_server_user "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U "$ROLE" -D "$dir/data" -R \
        -X stream --checkpoint=fast >"$dir/basebackup.log" 2>&1 \
        || { cat "$dir/basebackup.log" >&2; rm -rf "$dir"; die "pg_basebackup failed"; }
    port=$(start_on_free_port "$dir") || { cat "$dir/server.log" >&2; stop "$dir"; die "the standby did not start"; }
    if [ -n "$owner_pid" ]; then
        setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; "$2" stop "$3"' \
            watchdog "$owner_pid" "$(readlink -f "$0")" "$dir" </dev/null >/dev/null 2>&1 &
    fi
    echo "postgresql://$ROLE@127.0.0.1:$port/$DATABASE"
    echo "$dir"
}

promote() {
    local dir=${1:?promote needs the directory of the standby}
    as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null || die "pg_ctl promote failed"
}

kill_server() {
    local dir=${1:?kill needs the directory of the server}
    as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
}

restart_server() {
    local dir=${1:?restart needs the directory of the server} port=${2:?restart needs the port}
    [ -f "$dir/data/PG_VERSION" ] || die "$dir is not a directory this script made"
    as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 600 start -o \
        "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=${KURA_TEST_POSTGRES_FSYNC:-on} ${KURA_TEST_POSTGRES_OPTIONS:-}" \
        >/dev/null 2>&1 || { tail -n 20 "$dir/server.log" >&2; die "the server did not start again on port $port"; }
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) stop "${2:?stop needs the directory that start printed}" ;;
    standby) shift; standby "$@" ;;
    promote) promote "${2:-}" ;;
    kill) kill_server "${2:-}" ;;
    restart) restart_server "${2:-}" "${3:-}" ;;
    *) die "usage: $0 start [--owner-pid PID] | stop DIRECTORY | standby DIRECTORY [--owner-pid PID] | promote DIRECTORY | kill DIRECTORY | restart DIRECTORY PORT" ;;
esac
