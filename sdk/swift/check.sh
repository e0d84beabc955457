#!/usr/bin/env bash
# What Linux can check of the Swift SDK's portability (run by `make test`):
#  1. Sources/KuraClient imports nothing Linux-only: no Glibc/Musl, and FoundationNetworking only behind
#     `#if canImport(FoundationNetworking)`;
#  2. both manifests declare the Apple platforms the SDK needs;
#  3. the SDK's own manifest (sdk/swift/Package.swift) builds alone: KuraClient and the shared KuraModel, without
#     any server module; Sources/KuraModel imports Glibc only under `#if canImport(Glibc)` beside a Darwin branch;
#  4. an app that writes `import KuraClient` sees only the SDK's names: the model's (`JSONValue`…) do not compile.
set -euo pipefail
shopt -s globstar # the SDK's files lie in folders by concern
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sources="$root/Sources/KuraClient"
status=0

if grep -nE '^\s*import\s+(Glibc|Musl|SwiftGlibc|Android)\b' "$sources"/**/*.swift; then
    echo "check.sh: the SDK imports a Linux-only module (above); use Foundation" >&2
    status=1
fi
for file in "$sources"/**/*.swift; do
    # Every `import FoundationNetworking` must sit right under `#if canImport(FoundationNetworking)`.
    if awk '/^[[:space:]]*import FoundationNetworking/ { if (previous !~ /#if canImport\(FoundationNetworking\)/) bad = 1 }
            { previous = $0 } END { exit bad ? 0 : 1 }' "$file"; then
        echo "check.sh: $file imports FoundationNetworking without #if canImport(FoundationNetworking)" >&2
        status=1
    fi
done

model="$root/Sources/KuraModel"
if grep -nE '^\s*import\s+(Musl|SwiftGlibc|Android|Foundation|FoundationNetworking)\b' "$model"/**/*.swift; then
    echo "check.sh: KuraModel imports a platform module (above); it is pure Swift" >&2
    status=1
fi
for file in "$model"/**/*.swift; do
    # `import Glibc` only right under `#if canImport(Glibc)`, and then a Darwin branch in the same file.
    if awk '/^[[:space:]]*import Glibc/ { if (previous !~ /#if canImport\(Glibc\)/) bad = 1 }
            { previous = $0 } END { exit bad ? 0 : 1 }' "$file" \
        || { grep -q 'import Glibc' "$file" && ! grep -q 'canImport(Darwin)' "$file"; }; then
        echo "check.sh: $file imports Glibc without #if canImport(Glibc) ... #elseif canImport(Darwin)" >&2
        status=1
    fi
done

platforms='platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)]'
for manifest in "$root/Package.swift" "$here/Package.swift"; do
    if ! grep -qF "$platforms" "$manifest"; then
        echo "check.sh: $manifest lacks '$platforms'" >&2
        status=1
    fi
done

scratch="${SDK_BUILD_DIR:-$here/.build}"
mkdir -p "$scratch"
swift build --package-path "$here" --scratch-path "$scratch" >"$scratch/check-build.log" 2>&1 || {
    cat "$scratch/check-build.log" >&2
    echo "check.sh: sdk/swift/Package.swift does not build alone" >&2
    status=1
}
# Only the SDK, the model and the SQLite shim may have been compiled.
modules=$(find "$scratch" -name '*.swiftmodule' -path '*/Modules/*' -exec basename {} .swiftmodule \; | sort -u | tr '\n' ' ')
if [ "$modules" != "KuraClient KuraModel " ]; then
    echo "check.sh: the SDK build compiled more than KuraClient and KuraModel: $modules" >&2
    status=1
fi
# Firebase names the SDK does not offer fail to compile with a message that says what to write instead.
modules_dir=$(dirname "$(find "$scratch" -name KuraClient.swiftmodule -path '*/Modules/*' | head -1)")
diagnostics=$(swiftc -typecheck -I "$modules_dir" -Xcc -fmodule-map-file="$root/Sources/CSQLite/module.modulemap" \
    "$here/check-unavailable.swift" 2>&1 || true)
while IFS= read -r expected; do
    if ! grep -qF -- "is unavailable: " <<<"$(grep -F -- "$expected" <<<"$diagnostics")"; then
        echo "check.sh: no 'unavailable' error saying '$expected' for check-unavailable.swift:" >&2
        echo "$diagnostics" | grep -F "error:" >&2 || true
        status=1
    fi
done < <(sed -n 's|.*// expect: ||p' "$here/check-unavailable.swift")

# KuraClient imports the model `internal` in every file: a plain `import` is public in Swift 6, so a public SDK
# declaration could expose a model type to apps. (Whether the import is internal is what this checks; the snippet
# below catches `@_exported` re-exports, which would show the model even with no public declaration naming it.)
plain=$(grep -lE '^[[:space:]]*(@_exported |public |package )?import KuraModel' "$root"/Sources/KuraClient/**/*.swift || true)
if [ -n "$plain" ]; then
    echo "check.sh: these SDK files import KuraModel without 'internal' (write 'internal import KuraModel'):" >&2
    echo "$plain" >&2
    status=1
fi

# `import KuraClient` alone must not show the model's names (KuraClient imports KuraModel `internal`).
snippet="$scratch/check-model-hidden.swift"
printf 'import KuraClient\nlet value: JSONValue = .null\nlet code = ErrorCode.notFound\n' >"$snippet"
hidden=$(swiftc -typecheck -I "$modules_dir" -Xcc -fmodule-map-file="$root/Sources/CSQLite/module.modulemap" \
    "$snippet" 2>&1 || true)
for name in "cannot find type 'JSONValue' in scope" "cannot find 'ErrorCode' in scope"; do
    if ! grep -qF "$name" <<<"$hidden"; then
        echo "check.sh: 'import KuraClient' alone shows the model to an app (no \"$name\"):" >&2
        echo "$hidden" >&2
        status=1
    fi
done

[ $status -eq 0 ] && echo "check.sh: the Swift SDK is portable as far as Linux can tell, and builds alone"
exit $status
