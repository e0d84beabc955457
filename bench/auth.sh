#!/usr/bin/env bash
# Benchmark, not a test: kura's accounts (docs/performance.md, "bench/auth.sh").
#  1. sign-ins (POST /api/auth/signin, SIGNIN_CONNECTIONS connections, rate limits off) against the raw argon2id
#     rate of this machine: bench/pwhash_rate.c running crypto_pwhash_str_verify, the operation a sign-in runs, at
#     the same OPSLIMIT/MEMLIMIT on HASH_THREADS threads                                  -> signin_vs_pwhash_ratio
#  2. GET /api/auth/me with a Bearer ID token (CONNECTIONS connections) against nginx's GET of the 33-byte health
#     body                                                                                -> me_vs_nginx_ratio
#  3. sign-ins with an unknown address against sign-ins with a wrong password, one at a time -> unknown_vs_wrong_ratio
# Each part warms up, then alternates its two sides for ROUNDS rounds of DURATION seconds (who goes first alternates
# too) and takes medians, like bench/http.sh. The last line sums up:
# `auth_summary signin_ratio=… me_ratio=… signins_per_s=… pwhash_per_s=… …`.
#
# Usage: bench/auth.sh   (needs what `make bench` installs, plus a C compiler and python3)
#        ROUNDS=1 DURATION=5 bench/auth.sh   (a quick try)
# Environment: ROUNDS=5 DURATION=10 (seconds per side per round) THREADS=2 (wrk's) BUILD_DIR=.build
#              OPSLIMIT=2 MEMLIMIT=67108864 (argon2id passes and bytes, given to kura with --set
#              auth.passwordOpsLimit/auth.passwordMemLimit and to pwhash_rate; the defaults are kura's own, libsodium's
#              INTERACTIVE); HASH_THREADS=$(nproc) (pwhash_rate's threads: the cores kura's workers can hash on);
#              SIGNIN_CONNECTIONS=16 ACCOUNTS=8 (for part 1); CONNECTIONS=64 (for part 2);
#              KURA_ARGS="--set http.workerThreads=2" adds flags to `kura serve` (after the script's own);
#              KEEP_LOGS=/some/dir copies kura's log, nginx's error log and wrk's reports there on exit.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
BUILD_DIR=${BUILD_DIR:-.build}
KURA_ARGS=${KURA_ARGS:-}
OPSLIMIT=${OPSLIMIT:-2}
MEMLIMIT=${MEMLIMIT:-67108864}
HASH_THREADS=${HASH_THREADS:-$(nproc)}
SIGNIN_CONNECTIONS=${SIGNIN_CONNECTIONS:-16}
ACCOUNTS=${ACCOUNTS:-8}
KEEP_LOGS=${KEEP_LOGS:-}
WARMUP=2
PASSWORD=bench-password-2718 # every account's; plain ASCII, as the Lua script puts it into JSON unescaped

cd "$(dirname "$0")/.."
source bench/lib.sh
require_tools swift wrk curl "$nginx" cc python3

build_kura
make_bench_dir
keep_logs() {
    if [ -n "$KEEP_LOGS" ] && [ -d "$dir" ]; then
        mkdir -p "$KEEP_LOGS"
        cp "$dir"/*.log "$dir"/wrk-*.txt "$dir"/pwhash-*.txt "$KEEP_LOGS"/ 2>/dev/null || true
        cp "$dir/nginx/error.log" "$KEEP_LOGS/nginx-error.log" 2>/dev/null || true
    fi
}
trap 'keep_logs; cleanup' EXIT

pwhash=$dir/pwhash_rate
cc -O2 -pthread -o "$pwhash" bench/pwhash_rate.c -lsodium

kura_port=$(free_port)
nginx_port=$(free_port_except "$kura_port")
kura_base=http://127.0.0.1:$kura_port
nginx_base=http://127.0.0.1:$nginx_port

user_args=$KURA_ARGS
KURA_ARGS="--set auth.rateLimits=false --set auth.passwordOpsLimit=$OPSLIMIT --set auth.passwordMemLimit=$MEMLIMIT"
KURA_ARGS+="${user_args:+ $user_args}"
start_kura "$kura_port" "$dir/kura_data" "$dir/kura.log"

# Fails with the answer unless `curl …` ($2…) answers HTTP $1; prints the body otherwise.
expect() {
    local want=$1 out
    shift
    out=$(curl -sS -o "$dir/curl-body" -w '%{http_code}' "$@") || true
    if [ "$out" != "$want" ]; then
        echo "$BENCH: expected HTTP $want from curl $*, got $out: $(head -c 500 "$dir/curl-body")" >&2
        exit 1
    fi
    cat "$dir/curl-body"
}
json_post() { expect "$1" -X POST "$kura_base$2" -H 'Content-Type: application/json' --data-binary "$3"; }

status=0
warn() {
    echo "WARNING: $*" >&2
    status=1
}

# Waits until kura uses (almost) no CPU: when wrk stops, the sign-ins it left in flight still run on kura's
# workers, and they must not overlap the next measurement.
wait_idle() {
    local before after
    before=$(awk '{ print $14 + $15 }' "/proc/$kura_pid/stat")
    for _ in $(seq 300); do
        sleep 0.2
        after=$(awk '{ print $14 + $15 }' "/proc/$kura_pid/stat")
        [ $((after - before)) -le 1 ] && return # at most a clock tick (10 ms) in 200 ms
        before=$after
    done
    warn "kura was still busy 60 s after wrk stopped"
}

# --- 1. Sign-ins against the raw argon2id rate ----------------------------------------------------------------
for i in $(seq "$ACCOUNTS"); do
    json_post 201 /api/auth/signup \
        "{\"email\":\"bench-$i@example.com\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench $i\"}" >/dev/null
done
json_post 200 /api/auth/signin "{\"email\":\"bench-1@example.com\",\"password\":\"$PASSWORD\"}" >"$dir/signin.json"

# The hashes kura stored must carry the parameters pwhash_rate uses, or the comparison means nothing.
pwhash_prefix=$("$pwhash" "$OPSLIMIT" "$MEMLIMIT" 1 0.001 "$PASSWORD" | sed -n 's/^hash=\(\$[^$]*\$[^$]*\$[^$]*\$\).*/\1/p')
kura_prefixes=$(python3 - "$dir/kura_data/accounts.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(" ".join(sorted({h.rsplit("$", 2)[0] + "$" for (h,) in db.execute("SELECT password_hash FROM accounts")})))
PY
)
if [ "$kura_prefixes" != "$pwhash_prefix" ]; then
    echo "$BENCH: kura's password hashes start $kura_prefixes, pwhash_rate's $pwhash_prefix" >&2
    exit 1
fi

workers=$(sed -n 's/.*http\.workerThreads=\([0-9]*\).*/\1/p' <<<"$user_args")
workers=${workers:-$((2 * $(nproc) > 4 ? 2 * $(nproc) : 4))}
echo "kura $("$kura" --version | awk '{print $NF}') $KURA_ARGS; $(nproc) cores, $workers worker threads"
echo "argon2id ${pwhash_prefix%\$} (opslimit $OPSLIMIT, memlimit $MEMLIMIT)"
echo "== POST /api/auth/signin ($SIGNIN_CONNECTIONS connections rotating among $ACCOUNTS accounts) against" \
    "crypto_pwhash_str_verify on $HASH_THREADS threads"
echo "wrk/pwhash_rate: $ROUNDS rounds x ${DURATION}s per side, wrk $THREADS threads, ${WARMUP}s warm-up"

export SIGNIN_ACCOUNTS=$ACCOUNTS SIGNIN_PASSWORD=$PASSWORD # for bench/auth-signin.lua
signin_wrk=("$kura_base/api/auth/signin" -s bench/auth-signin.lua --timeout 60s)
me_connections=$CONNECTIONS
CONNECTIONS=$SIGNIN_CONNECTIONS
# Sign-ins for $2 seconds, wrk's report in wrk-$1.txt; sets signin_rps (two decimals) and signin_p99 (ms), checks
# the errors and answers, and waits until kura is idle again.
measure_signins() {
    local out=$dir/wrk-$1.txt e checked="" bad=""
    read -r signin_rps signin_p99 e < <(measure "$1" "${signin_wrk[0]}" "$2" "${signin_wrk[@]:1}")
    wait_idle
    signin_rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out") # measure rounds to whole requests; too coarse here
    read -r checked bad < <(sed -n 's/^signin_checked=\([0-9]*\) signin_bad=\([0-9]*\)$/\1 \2/p' "$out") || true
    if [ "$e" -gt 0 ] || [ "${bad:-1}" -gt 0 ] || [ "${checked:-0}" -eq 0 ]; then
        warn "sign-ins ($1): $e socket errors or non-2xx, ${bad:-?} of ${checked:-?} answers not 200 with an idToken;" \
            "$(grep -h -e '^signin_first_bad=' -e 'Socket errors' -e 'Non-2xx' "$out" | tr '\n' ' ')"
    fi
}
# The raw rate: prints verifications/s.
measure_pwhash() {
    "$pwhash" "$OPSLIMIT" "$MEMLIMIT" "$HASH_THREADS" "$2" "$PASSWORD" >"$dir/pwhash-$1.txt"
    sed -n 's/^pwhash_per_s=//p' "$dir/pwhash-$1.txt"
}

measure_signins signin-warmup "$WARMUP"
measure_pwhash warmup 1 >/dev/null
signin_rates="" signin_p99s="" pwhash_rates=""
for round in $(seq "$ROUNDS"); do
    order="kura pwhash"
    if [ $((round % 2)) -eq 0 ]; then order="pwhash kura"; fi
    for side in $order; do
        if [ "$side" = kura ]; then
            measure_signins "signin-$round" "$DURATION"
            signin_rates+="$signin_rps " signin_p99s+="$signin_p99 "
            kura_line="$signin_rps sign-ins/s  p99 $signin_p99 ms"
        else
            v=$(measure_pwhash "$round" "$DURATION")
            pwhash_rates+="$v "
            pwhash_line="$v verifications/s"
        fi
    done
    echo "round $round/$ROUNDS  kura $kura_line  |  crypto_pwhash_str_verify $pwhash_line"
done
signins_per_s=$(median %.2f <<<"$signin_rates")
pwhash_per_s=$(median %.2f <<<"$pwhash_rates")
echo "median  kura $signins_per_s sign-ins/s  p99 $(median %.2f <<<"$signin_p99s") ms  |" \
    "crypto_pwhash_str_verify $pwhash_per_s/s"

# wrk's counts cover the measured windows; kura's access log also has the sign-ins left in flight when wrk stopped.
sleep 1.1 # kura flushes its access log about every second
read -r signins signed_in < <(awk '$3 == "POST" && $4 == "/api/auth/signin" { n++; if ($5 == 200) ok++ }
    END { print n + 0, ok + 0 }' "$dir/kura.log")
echo "sign-ins in kura's access log: $signins, of which 200: $signed_in"
if [ "$signed_in" -ne "$signins" ]; then
    warn "sign-ins: $((signins - signed_in)) of $signins answers in kura's access log were not 200:" \
        "$(awk '$3 == "POST" && $4 == "/api/auth/signin" && $5 != 200 { print $5 }' "$dir/kura.log" |
            sort | uniq -c | tr -s ' \n' ' ')"
fi
signin_ratio=$(ratio "$signins_per_s" "$pwhash_per_s")
echo "signin_vs_pwhash_ratio=$signin_ratio"

# --- 2. Token verification against nginx ----------------------------------------------------------------------
token=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["idToken"])' "$dir/signin.json")
bearer="Authorization: Bearer $token"
me_body=$(expect 200 -H "$bearer" "$kura_base/api/auth/me")
me_email=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["user"]["email"])' "$me_body")
if [ "$me_email" != bench-1@example.com ]; then
    echo "$BENCH: GET /api/auth/me answered $me_body" >&2
    exit 1
fi
mkdir -p "$dir/www/api"
expect 200 "$kura_base/api/health" >"$dir/www/api/health"
start_nginx "$nginx_port" "$nginx_base/api/health"
if [ "$(expect 200 "$nginx_base/api/health")" != "$(cat "$dir/www/api/health")" ]; then
    echo "$BENCH: nginx does not answer kura's health body" >&2
    exit 1
fi

CONNECTIONS=$me_connections
echo "== GET /api/auth/me (Bearer ID token, ${#me_body}-byte body) against nginx's GET /api/health" \
    "($(wc -c <"$dir/www/api/health")-byte body), both logging every request"
echo "wrk: $ROUNDS rounds x ${DURATION}s per side, $CONNECTIONS connections, $THREADS threads, ${WARMUP}s warm-up;" \
    "nginx $("$nginx" -v 2>&1 | sed 's|.*/||') (2 workers)"
# nginx gets the same header, so both sides read the same request bytes.
kura_wrk=("$kura_base/api/auth/me" -H "$bearer")
nginx_wrk=("$nginx_base/api/health" -H "$bearer")
run_rounds me-
echo "median  kura $rps_kura req/s  p99 $p99_kura ms  |  nginx $rps_nginx req/s  p99 $p99_nginx ms"
for side in kura nginx; do
    errors=errors_$side
    if [ "${!errors}" -gt 0 ]; then warn "/api/auth/me: $side had ${!errors} socket errors or non-2xx responses"; fi
done
sleep 1.1
read -r mes me_ok < <(awk '$3 == "GET" && $4 == "/api/auth/me" { n++; if ($5 == 200) ok++ } END { print n + 0, ok + 0 }' \
    "$dir/kura.log")
echo "GET /api/auth/me in kura's access log: $mes, of which 200: $me_ok"
if [ "$me_ok" -ne "$mes" ]; then warn "/api/auth/me: $((mes - me_ok)) of $mes answers were not 200"; fi
me_ratio=$(ratio "$rps_kura" "$rps_nginx")
echo "me_vs_nginx_ratio=$me_ratio"

# --- Anything the servers complained about ----------------------------------------------------------------------
# Access-log lines with a status of 400 or more, and any line that is not at INFO.
complaints=$(awk '($2 == "INFO" && $5 ~ /^[0-9]+$/ && $5 >= 400) || ($2 != "INFO" && $2 != "")' "$dir/kura.log" | head -20)
if [ -n "$complaints" ]; then
    echo "WARNING: kura.log has error answers or warnings (first 20):" >&2
    echo "$complaints" >&2
fi
if [ -s "$dir/nginx/error.log" ]; then
    echo "WARNING: nginx's error log:" >&2
    head -20 "$dir/nginx/error.log" >&2
fi

# --- 3. An unknown address against a wrong password -------------------------------------------------------------
# Both must cost one argon2id verification (the test suite proves that by counting; this measures it). One sign-in
# at a time, alternating, UNKNOWN_SAMPLES of each; the ratio of the medians should be close to 1.
UNKNOWN_SAMPLES=${UNKNOWN_SAMPLES:-30}
time_signin() {
    curl -s -o /dev/null -w '%{time_total}\n' -X POST "$kura_base/api/auth/signin" \
        -d "{\"email\":\"$1\",\"password\":\"not-the-password\"}"
}
wrong_times="" unknown_times=""
for ((i = 0; i < UNKNOWN_SAMPLES; i++)); do
    wrong_times+="$(time_signin bench-1@example.com) "
    unknown_times+="$(time_signin "nobody-$i@example.com") "
done
wrong_ms=$(median %.6f <<<"$wrong_times" | awk '{ printf "%.2f", $1 * 1000 }')
unknown_ms=$(median %.6f <<<"$unknown_times" | awk '{ printf "%.2f", $1 * 1000 }')
unknown_ratio=$(ratio "$unknown_ms" "$wrong_ms")
echo "== sign-in with an unknown address vs a wrong password, $UNKNOWN_SAMPLES each, one at a time"
echo "median  unknown $unknown_ms ms  |  wrong password $wrong_ms ms"
echo "unknown_vs_wrong_ratio=$unknown_ratio"

echo "auth_summary signin_ratio=$signin_ratio me_ratio=$me_ratio signins_per_s=$signins_per_s" \
    "pwhash_per_s=$pwhash_per_s me_per_s=$rps_kura nginx_per_s=$rps_nginx unknown_vs_wrong_ratio=$unknown_ratio" \
    "opslimit=$OPSLIMIT memlimit=$MEMLIMIT"
exit "$status"
