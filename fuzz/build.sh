#!/bin/bash
# Builds the libFuzzer harnesses (docs/reliability.md, "Fuzzing") into .build/fuzz/bin/NAME-fuzz.
# Usage: fuzz/build.sh [NAME…]   (no names: every harness in fuzz/harnesses.txt)
#
# SwiftPM cannot link an executable with -sanitize=fuzzer, so this compiles the module sources with swiftc directly:
# each module under test becomes a static library instrumented for coverage and AddressSanitizer, and each harness
# (fuzz/NAMEFuzz.swift) is linked against the libraries it needs. Every artifact is keyed by a hash of its sources,
# its flags and the artifacts it depends on (.build/fuzz/*.stamp), so a second build with nothing changed does nothing.
set -euo pipefail
shopt -s globstar # Sources/NAME/**/*.swift: a module's files in its folders too
cd "$(dirname "$0")/.."
command -v swiftc >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
OUT=.build/fuzz
mkdir -p "$OUT/bin" "$OUT/cre2"

SAN=(-sanitize=fuzzer,address)
SWIFTFLAGS=(-O -wmo -parse-as-library -package-name Kura -I "$OUT" -I Sources/CSodium -I Sources/CLibUV
    -I Sources/CHTTPParser -I Sources/CSQLite -Xcc -fmodule-map-file="$OUT/cre2/module.modulemap")

# The hash of files and words, for the stamps.
key() { { for f in "$@"; do if [ -f "$f" ]; then cat "$f"; else echo "$f"; fi; done; } | sha256sum | cut -c1-32; }

# up_to_date NAME KEY: whether NAME was last built from KEY (and its output is there).
up_to_date() { [ -f "$OUT/$1.stamp" ] && [ "$(cat "$OUT/$1.stamp")" = "$2" ]; }

# CRE2 (C++) for KuraRules, with a module map of its own (SwiftPM writes one when it builds the target).
build_cre2() {
    local k
    k=$(key Sources/CRE2/CRE2.cpp Sources/CRE2/include/CRE2.h)
    local map
    map=$(printf 'module CRE2 {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CRE2/include/CRE2.h")
    # Written only when it changes: another build.sh may be compiling with it.
    [ "$(cat "$OUT/cre2/module.modulemap" 2>/dev/null)" = "$map" ] || echo "$map" >"$OUT/cre2/module.modulemap"
    up_to_date CRE2 "$k" && return
    echo "fuzz/build.sh: CRE2" >&2
    clang++ -O2 -std=c++17 -fPIC -I Sources/CRE2/include -c Sources/CRE2/CRE2.cpp -o "$OUT/cre2/CRE2.o"
    ar rcs "$OUT/libCRE2.a" "$OUT/cre2/CRE2.o"
    echo "$k" >"$OUT/CRE2.stamp"
}

# lib NAME DEP… : Sources/NAME as an instrumented static library; DEPs are libraries built before it.
lib() {
    local name=$1
    shift
    local deps=() k
    for d in "$@"; do deps+=("$OUT/$d.stamp"); done
    k=$(key Sources/"$name"/**/*.swift "${deps[@]}" "${SWIFTFLAGS[@]}" "${SAN[@]}")
    up_to_date "$name" "$k" && return
    echo "fuzz/build.sh: $name" >&2
    # -enable-testing: a harness may `@testable import` the internals it checks (the rules lexer, for one).
    swiftc "${SWIFTFLAGS[@]}" "${SAN[@]}" -enable-testing -module-name "$name" \
        -emit-module -emit-module-path "$OUT/$name.swiftmodule" -emit-library -static -o "$OUT/lib$name.a" \
        Sources/"$name"/**/*.swift
    echo "$k" >"$OUT/$name.stamp"
}

# harness NAME "LIBS" "SYSTEM LIBS" [extra sources…]: fuzz/<Name>Fuzz.swift (plus the extra sources, compiled into
# the same module) linked against LIBS into .build/fuzz/bin/NAME-fuzz.
harness() {
    local name=$1 libs=$2 system=$3
    shift 3
    local file deps=() links=() k
    file=fuzz/$(echo "$name" | sed -E 's/(^|-)([a-z])/\U\2/g')Fuzz.swift
    for l in $libs; do
        deps+=("$OUT/$l.stamp")
        links+=("-l$l")
    done
    for s in $system; do links+=("-l$s"); done
    k=$(key "$file" fuzz/FuzzSupport.swift "$@" "${deps[@]}" "${SWIFTFLAGS[@]}" "${SAN[@]}" "${links[@]}")
    up_to_date "bin-$name" "$k" && [ -x "$OUT/bin/$name-fuzz" ] && return
    echo "fuzz/build.sh: $name-fuzz" >&2
    swiftc "${SWIFTFLAGS[@]}" "${SAN[@]}" -module-name "Fuzz_${name//-/_}" -L "$OUT" "${links[@]}" \
        "$file" fuzz/FuzzSupport.swift "$@" -o "$OUT/bin/$name-fuzz"
    echo "$k" >"$OUT/bin-$name.stamp"
}

want() { [ ${#targets[@]} -eq 0 ] || [[ " ${targets[*]} " == *" $1 "* ]]; }
targets=("$@")

build_cre2
lib KuraModel
want json && harness json "KuraModel" ""
want path && harness path "KuraModel" ""
if want http || want connection || want query || want commit || want rules || want rules-eval; then
    lib KuraCore KuraModel
fi
if want http || want connection || want query || want commit; then
    lib KuraHTTP KuraCore KuraModel
    want http && harness http "KuraHTTP KuraCore KuraModel" "uv http_parser sodium"
    want connection && harness connection "KuraHTTP KuraCore KuraModel" "uv http_parser sodium"
fi
if want query || want commit; then
    lib KuraStore KuraCore KuraModel
    decoding=(Sources/KuraServer/Decoding/*.swift)
    want query && harness query "KuraStore KuraHTTP KuraCore KuraModel" "uv http_parser sodium" "${decoding[@]}"
    want commit && harness commit "KuraStore KuraHTTP KuraCore KuraModel" "uv http_parser sodium" "${decoding[@]}"
fi
if want rules || want rules-eval; then
    lib KuraRules KuraCore KuraModel CRE2
    want rules && harness rules "KuraRules KuraCore KuraModel CRE2" "sodium re2 stdc++"
    want rules-eval && harness rules-eval "KuraRules KuraCore KuraModel CRE2" "sodium re2 stdc++"
fi
# The SDK's SSE parser is internal: the harness is compiled into the KuraClient module itself.
if want sse; then
    harness sse "KuraModel" "sqlite3" Sources/KuraClient/**/*.swift
fi
exit 0
