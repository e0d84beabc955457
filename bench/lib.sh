# Shared by the bench/ scripts (http.sh, docs.sh); sourced, never run. Each script sets its settings (ROUNDS,
# DURATION, CONNECTIONS, THREADS, BUILD_DIR, KURA_ARGS, WARMUP), cds to the repository root and sources this file.
# Messages name the script that sourced it: "bench/http.sh: …".
BENCH=bench/$(basename "$0")
nginx=$(command -v nginx || echo /usr/sbin/nginx)

# Fails unless every tool named is installed.
require_tools() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "$BENCH: $tool not found; 'make bench' installs it" >&2; exit 1; }
    done
}

# A release build of kura in $BUILD_DIR; sets $kura to the binary. KURA_BIN=path uses that binary instead, without
# building (to compare two builds in alternating runs).
build_kura() {
    if [ -n "${KURA_BIN:-}" ]; then
        kura=$KURA_BIN
        return
    fi
    swift build -c release --product kura --scratch-path "$BUILD_DIR"
    kura=$BUILD_DIR/release/kura
}

# A temp dir ($dir) that is removed on exit, with every server started by start_kura/start_nginx ($pids) stopped.
make_bench_dir() {
    dir=$(mktemp -d /tmp/kura-bench.XXXXXX)
    chmod 755 "$dir" # nginx workers run as an unprivileged user and read $dir/www
    pids=()
    trap cleanup EXIT
    trap 'exit 130' INT TERM
}
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}

# A port nothing answers on (racy in theory, fine on a bench machine), below Linux's ephemeral range (32768 up):
# after a run with thousands of connections, ports in that range can be held by client sockets in TIME_WAIT, and
# the servers' listen() then fails with "address already in use".
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}

# A free port other than the ones given.
free_port_except() {
    local port
    port=$(free_port)
    while [[ " $* " == *" $port "* ]]; do port=$(free_port); done
    echo "$port"
}

# Waits until $2 answers; if the server ($1 names it) exits first, shows its log and fails.
wait_for() {
    local name=$1 url=$2 pid=$3 log=$4
    for _ in $(seq 100); do
        curl -fsS -o /dev/null "$url" 2>/dev/null && return
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$BENCH: $name did not answer on $url; its log:" >&2
    tail -20 "$log" >&2
    exit 1
}

# Starts `kura serve` on port $1 with data dir $2, logging to $3, on its default log level (info), so the access log
# is on; $KURA_ARGS adds flags. Waits for /api/health and sets $kura_pid.
start_kura() {
    local port=$1 data=$2 log=$3
    # shellcheck disable=SC2086 # KURA_ARGS holds several flags
    "$kura" serve --host 127.0.0.1 --port "$port" --data "$data" $KURA_ARGS >"$log" 2>&1 &
    kura_pid=$!
    pids+=("$kura_pid")
    wait_for kura "http://127.0.0.1:$port/api/health" "$kura_pid" "$log"
}

# Starts nginx (bench/nginx.conf.template) on port $1, serving $dir/www; waits until $2 (a URL on it) answers.
start_nginx() {
    local port=$1 url=$2
    mkdir -p "$dir/nginx" "$dir/www"
    chmod -R a+rX "$dir/www"
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" bench/nginx.conf.template >"$dir/nginx.conf"
    "$nginx" -p "$dir/nginx/" -c "$dir/nginx.conf" -e "$dir/nginx/error.log" >"$dir/nginx/stdout.log" 2>&1 &
    pids+=($!)
    wait_for nginx "$url" "$!" "$dir/nginx/error.log"
}

# The content type and the body of the answer to GET $1 (further curl arguments follow), to compare two servers.
response() { curl -fsS -D - "$@" | tr -d '\r' | grep -i -e '^content-type:' -e '^{'; }

# Fails unless GET $1 and GET $2 answer with the same body and content type ($3… are extra curl arguments).
same_response() {
    local a=$1 b=$2
    shift 2
    if [ "$(response "$a" "$@")" != "$(response "$b" "$@")" ]; then
        echo "$BENCH: kura and nginx answer differently:" >&2
        diff <(response "$a" "$@") <(response "$b" "$@") >&2 || true
        exit 1
    fi
}

# Runs wrk against $2 for $3 seconds (further wrk arguments follow: -H, -s); prints "requests/s p99-in-ms errors".
# The errors are socket errors plus non-2xx/3xx answers. wrk's report stays in $dir/wrk-$1.txt.
measure() {
    local out=$dir/wrk-$1.txt url=$2 seconds=$3
    shift 3
    wrk --latency -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" "$@" "$url" >"$out"
    awk '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /m$/) return v * 60000
            if (v ~ /s$/) return v * 1000
            return v
        }
        $1 == "99%" { p99 = ms($2) }
        /^Requests\/sec:/ { rps = $2 }
        /Socket errors:/ { errors += $4 + $6 + $8 + $10 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        END { printf "%.0f %.2f %d\n", rps, p99, errors }
    ' "$out"
}

# Measures kura against nginx: a $WARMUP-second warm-up each, then $ROUNDS rounds of $DURATION seconds per side,
# alternating which goes first, printing a line per round. The wrk arguments per side (URL first, then flags) come
# in the arrays kura_wrk and nginx_wrk; $1 prefixes wrk's report files. Sets rps_kura, rps_nginx, p99_kura,
# p99_nginx (medians over the rounds) and errors_kura, errors_nginx (totals).
run_rounds() {
    local tag=$1 round order side r p e
    measure "${tag}kura-warmup" "${kura_wrk[0]}" "$WARMUP" "${kura_wrk[@]:1}" >/dev/null
    measure "${tag}nginx-warmup" "${nginx_wrk[0]}" "$WARMUP" "${nginx_wrk[@]:1}" >/dev/null
    # Per side: the rounds' req/s and p99 (space-separated), the error count, and the current round's line.
    local -A rps=() p99=() errors=([kura]=0 [nginx]=0) line=()
    for round in $(seq "$ROUNDS"); do
        # Alternate who goes first, so a drift in machine load hits both sides alike.
        order="kura nginx"
        if [ $((round % 2)) -eq 0 ]; then order="nginx kura"; fi
        for side in $order; do
            if [ "$side" = kura ]; then set -- "${kura_wrk[@]}"; else set -- "${nginx_wrk[@]}"; fi
            read -r r p e < <(measure "$tag$side" "$1" "$DURATION" "${@:2}")
            rps[$side]+="$r " p99[$side]+="$p " errors[$side]=$((errors[$side] + e))
            line[$side]="$r req/s  p99 $p ms"
            if [ "$e" -gt 0 ]; then line[$side]+="  ($e errors)"; fi
        done
        echo "round $round/$ROUNDS  kura ${line[kura]}  |  nginx ${line[nginx]}"
    done
    for side in kura nginx; do
        declare -g "rps_$side=$(median %.0f <<<"${rps[$side]}")" "p99_$side=$(median %.2f <<<"${p99[$side]}")"
        declare -g "errors_$side=${errors[$side]}"
    done
}

# Median of space-separated numbers on stdin, printed with the printf format $1.
median() {
    tr ' ' '\n' | grep . | sort -g |
        awk -v f="$1\n" '{ v[NR] = $1 } END { printf f, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# $1 / $2 with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }

# Warns about each named side whose wrk runs (run_sides) had socket errors or non-2xx answers; returns 1 if any did,
# so a caller can `sides_clean kura nginx || status=1`.
sides_clean() {
    local side errors clean=0
    for side in "$@"; do
        errors=errors_$side
        if [ "${!errors}" -gt 0 ]; then
            echo "WARNING: $side had ${!errors} socket errors or non-2xx responses; the figures are not comparable" >&2
            clean=1
        fi
    done
    return $clean
}
