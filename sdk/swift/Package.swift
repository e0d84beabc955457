// swift-tools-version:6.0
import PackageDescription

/// The Swift SDK alone: `KuraClient` needs Foundation, the shared model and SQLite, nothing of the server. Its
/// sources are the repository's `Sources/KuraClient` and `Sources/KuraModel` (and the `CSQLite` shim), through the
/// symlinks in `Sources/`, so this manifest and the repository's root one build the same code. Depend on it with `.package(path: "<kura>/sdk/swift")`.
/// docs/swift-sdk.md explains the choice.
let package = Package(
    name: "KuraClient",
    // The oldest systems with `URLSession.data(for:)` (async), which the SDK needs.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "KuraClient", targets: ["KuraClient"])
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The data model the SDK shares with the server (JSON values, paths, value order, query matching, error
        // codes): pure Swift. KuraClient imports it `internal`, so an app sees only the SDK's names.
        .target(name: "KuraModel"),
        .target(name: "KuraClient", dependencies: ["KuraModel", "CSQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
