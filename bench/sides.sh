# Sourced after bench/lib.sh, never run: `run_sides`, lib.sh's `run_rounds` for any number of sides (bench/docs.sh
# measures kura with the admin key, kura as a user, and nginx in one set of rounds).

# Measures the sides named $2… against each other: a $WARMUP-second warm-up each, then $ROUNDS rounds of $DURATION
# seconds per side, the order rotating every round so that a drift in machine load hits every side alike, printing a
# line per round. The wrk arguments of side S (URL first, then flags) come in the array wrk_S; $1 prefixes wrk's
# report files. Sets rps_S and p99_S (medians over the rounds) and errors_S (totals) for every side S.
run_sides() {
    local tag=$1 round side r p e i count name
    shift
    local sides=("$@")
    count=${#sides[@]}
    local -A rps=() p99=() errors=() line=()
    for side in "${sides[@]}"; do
        name="wrk_$side[@]"
        set -- "${!name}"
        measure "$tag$side-warmup" "$1" "$WARMUP" "${@:2}" >/dev/null
        errors[$side]=0
    done
    for round in $(seq "$ROUNDS"); do
        for i in $(seq 0 $((count - 1))); do
            side=${sides[$(((i + round - 1) % count))]}
            name="wrk_$side[@]"
            set -- "${!name}"
            read -r r p e < <(measure "$tag$side" "$1" "$DURATION" "${@:2}")
            rps[$side]+="$r " p99[$side]+="$p " errors[$side]=$((errors[$side] + e))
            line[$side]="$r req/s  p99 $p ms"
            if [ "$e" -gt 0 ]; then line[$side]+="  ($e errors)"; fi
        done
        local summary="round $round/$ROUNDS"
        for side in "${sides[@]}"; do summary+="  |  $side ${line[$side]}"; done
        echo "$summary"
    done
    for side in "${sides[@]}"; do
        declare -g "rps_$side=$(median %.0f <<<"${rps[$side]}")" "p99_$side=$(median %.2f <<<"${p99[$side]}")"
        declare -g "errors_$side=${errors[$side]}"
    done
}
