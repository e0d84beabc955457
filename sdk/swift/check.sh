#!/usr/bin/env bash
# What Linux can check of the Swift SDK's portability (run by `make test`):
#  1. Sources/KuraClient imports nothing Linux-only: no Glibc/Musl, and FoundationNetworking only behind
#     `#if canImport(FoundationNetworking)`;
#  2. both manifests declare the Apple platforms the SDK needs;
#  3. the SDK's own manifest (sdk/swift/Package.swift) builds alone: KuraClient without any server module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sources="$root/Sources/KuraClient"
status=0

if grep -nE '^\s*import\s+(Glibc|Musl|SwiftGlibc|Android)\b' "$sources"/*.swift; then
    echo "check.sh: the SDK imports a Linux-only module (above); use Foundation" >&2
    status=1
fi
for file in "$sources"/*.swift; do
    # Every `import FoundationNetworking` must sit right under `#if canImport(FoundationNetworking)`.
    if awk '/^[[:space:]]*import FoundationNetworking/ { if (previous !~ /#if canImport\(FoundationNetworking\)/) bad = 1 }
            { previous = $0 } END { exit bad ? 0 : 1 }' "$file"; then
        echo "check.sh: $file imports FoundationNetworking without #if canImport(FoundationNetworking)" >&2
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
swift build --package-path "$here" --scratch-path "$scratch" >"$scratch.log" 2>&1 || {
    cat "$scratch.log" >&2
    echo "check.sh: sdk/swift/Package.swift does not build alone" >&2
    status=1
}
# Only the SDK and its SQLite shim may have been compiled.
modules=$(find "$scratch" -name '*.swiftmodule' -path '*/Modules/*' -exec basename {} .swiftmodule \; | sort -u | tr '\n' ' ')
if [ "$modules" != "KuraClient " ]; then
    echo "check.sh: the SDK build compiled more than KuraClient: $modules" >&2
    status=1
fi
[ $status -eq 0 ] && echo "check.sh: the Swift SDK is portable as far as Linux can tell, and builds alone"
exit $status
