// swift-tools-version:6.0
import PackageDescription

/// Kura: a self-hosted app backend. Modules are laid out by capability (docs/architecture.md);
/// dependencies point one way: kura → KuraServer → KuraEngines → the engines (KuraSQLiteEngine, KuraPostgresEngine)
/// → KuraEngine → (KuraStore, KuraAuth, KuraMail, …) → KuraHTTP → KuraCore → C shims.
let package = Package(
    name: "Kura",
    // What the Swift SDK (KuraClient) needs: `URLSession.data(for:)` (async). The server runs on Linux.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .executable(name: "kura", targets: ["kura"]),
        .library(name: "KuraHTTP", targets: ["KuraHTTP"]),
        .library(name: "KuraClient", targets: ["KuraClient"]),
        .library(name: "KuraTodo", targets: ["KuraTodo"]),
        .executable(name: "kura-todo", targets: ["kura-todo"]),
        .library(name: "KuraCalc", targets: ["KuraCalc"]),
        .executable(name: "kura-calc", targets: ["kura-calc"]),
        .library(name: "KuraQuiz", targets: ["KuraQuiz"]),
        .executable(name: "kura-quiz", targets: ["kura-quiz"]),
        .library(name: "KuraPlaces", targets: ["KuraPlaces"]),
        .executable(name: "kura-places", targets: ["kura-places"]),
        .library(name: "KuraNotes", targets: ["KuraNotes"]),
        .executable(name: "kura-notes", targets: ["kura-notes"]),
    ],
    targets: [
        // One system-library target per C library: module.modulemap + shim.h, nothing else.
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        // Debian's libhttp-parser-dev ships no .pc file; the modulemap links libhttp_parser directly.
        .systemLibrary(name: "CHTTPParser", providers: [.apt(["libhttp-parser-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // RE2 (linear-time regexes, Debian's libre2-dev) behind a small C API, for the rules' `matches()`.
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),
        // The browser SDK (web/sdk/) compiled into the binary with C23 #embed (docs/architecture.md, "Static files").
        .target(name: "CKuraWebSDK"),

        // The data model the server and the SDK share (JSON values, paths, value order, RFC 3339, queries and
        // their matching, error codes): pure Swift, no C library, so it builds wherever the SDK does.
        .target(name: "KuraModel"),
        .target(name: "KuraCore", dependencies: ["KuraModel", "CSodium"]),
        .target(name: "KuraHTTP", dependencies: ["KuraCore", "CLibUV", "CHTTPParser", "KuraModel"]),
        .target(name: "KuraSQLite", dependencies: ["CSQLite", "KuraCore"]),
        // libpq wrapper, schema migrator and change-log ordering for the PostgreSQL engine (docs/scaling.md).
        .target(name: "KuraPostgres", dependencies: ["CPostgres", "KuraCore"]),
        .target(name: "KuraStore", dependencies: ["KuraModel", "KuraCore"]),
        .target(name: "KuraAuth", dependencies: ["KuraModel", "KuraCore", "CSodium"]),
        .target(name: "KuraMail", dependencies: ["KuraModel", "KuraCore", "CCurl"]),
        // What an engine is to a node (NodeEngine: documents, accounts, keys, outbox, the cluster channel) and how it
        // declares its own settings (EngineSetting).
        .target(name: "KuraEngine", dependencies: ["KuraModel", "KuraCore", "KuraStore", "KuraAuth", "KuraMail"]),
        // The SQLite engine: the SQLite implementations of the store protocols (Documents/, Accounts/, Keys/, Outbox/).
        .target(
            name: "KuraSQLiteEngine",
            dependencies: [
                "KuraModel", "KuraCore", "KuraStore", "KuraAuth", "KuraMail", "KuraEngine", "KuraSQLite", "CSQLite",
            ]),
        // The PostgreSQL engine, shared by many nodes (docs/scaling.md): Documents/, Accounts/, Keys/, Outbox/, Cluster/.
        .target(
            name: "KuraPostgresEngine",
            dependencies: ["KuraModel", "KuraCore", "KuraStore", "KuraAuth", "KuraMail", "KuraEngine", "KuraPostgres"]),
        // The engines this build has (StoreEngines.all): a new engine is its target here and one line in that list.
        .target(name: "KuraEngines", dependencies: ["KuraEngine", "KuraSQLiteEngine", "KuraPostgresEngine"]),
        .target(name: "KuraRules", dependencies: ["KuraCore", "CRE2", "KuraModel"]),
        .target(name: "KuraRealtime", dependencies: ["KuraCore", "KuraHTTP", "KuraStore", "KuraModel"]),
        .target(name: "KuraHosting", dependencies: ["KuraCore", "KuraHTTP", "CZlib", "KuraModel"]),
        .target(
            name: "KuraServer",
            dependencies: [
                "KuraCore", "KuraHTTP", "KuraStore", "KuraAuth", "KuraMail", "KuraRules", "KuraRealtime", "KuraHosting",
                "CKuraWebSDK", "KuraEngine", "KuraEngines", "KuraSQLiteEngine", "KuraPostgresEngine", "KuraModel",
            ]),
        .executableTarget(name: "kura", dependencies: ["KuraServer", "KuraCore", "KuraHTTP", "KuraModel"]),
        // The Swift SDK: Foundation, the shared model (imported `internal`, so apps see only the SDK's names) and the
        // SQLite shim (offline cache) only, so it also builds for Apple platforms.
        .target(name: "KuraClient", dependencies: ["KuraModel", "CSQLite"]),
        .target(name: "KuraTodo", dependencies: ["KuraClient"]),
        .executableTarget(name: "kura-todo", dependencies: ["KuraClient", "KuraTodo"]),
        // The seed calculator (apps/calc): its engine (exact decimals, the keypad's rules), pure Swift so an iOS app can
        // reuse it, and `kura-calc`, the engine in a terminal. The web app's JavaScript engine mirrors it and both run
        // apps/calc/cases.json.
        .target(name: "KuraCalc"),
        .executableTarget(name: "kura-calc", dependencies: ["KuraCalc"]),
        // "7位を当てろ！" (apps/quiz): the app logic an iOS app reuses (choices of ranks 5–8, score rules, the document
        // mapping, the import) on KuraClient, and its terminal client.
        .target(name: "KuraQuiz", dependencies: ["KuraClient"]),
        .executableTarget(name: "kura-quiz", dependencies: ["KuraClient", "KuraQuiz"]),
        // The "where am I" seed app (apps/places): geohash, great-circle and compass logic that needs no network,
        // and the nearest-place and name searches on KuraClient's range queries; `kura-places` is its command line.
        .target(name: "KuraPlaces", dependencies: ["KuraClient"]),
        .executableTarget(name: "kura-places", dependencies: ["KuraPlaces", "KuraClient"]),
        // The notebooks app (apps/notes): one normalization for search and names, name keys, the search, and the
        // notebook and word operations on KuraClient, for an iOS app as well as `kura-notes`, its command line.
        .target(name: "KuraNotes", dependencies: ["KuraClient"]),
        .executableTarget(name: "kura-notes", dependencies: ["KuraNotes", "KuraClient"]),

        // The test kit (docs/architecture.md, "Tests"): plain targets under Tests/ that every test target shares.
        // KuraTestSupport: raw HTTP and SSE clients, the KuraHTTP harnesses (live on port 0, and the router with no
        // socket), temporary directories, the SMTP sink, free ports. KuraServerTestSupport: a Kura node in this
        // process on port 0 (`TestKura`) with users and tokens; apart, so KuraHTTPTests does not pull the server in.
        .target(
            name: "KuraTestSupport", dependencies: ["KuraModel", "KuraCore", "KuraHTTP", "KuraPostgres"],
            path: "Tests/KuraTestSupport"),
        .target(
            name: "KuraServerTestSupport",
            dependencies: ["KuraTestSupport", "KuraModel", "KuraServer", "KuraStore", "KuraAuth", "KuraCore"],
            path: "Tests/KuraServerTestSupport"),

        // Helpers of the document-store tests (paths, expected errors), shared by every engine's tests.
        .target(
            name: "KuraStoreTestSupport", dependencies: ["KuraModel", "KuraCore", "KuraStore", "KuraTestSupport"],
            path: "Tests/KuraStoreTestSupport"),
        // The engines as the conformance suites open them (TestEngine.all: StoreEngines.all, each on a fresh database).
        .target(
            name: "KuraEngineTestSupport",
            dependencies: ["KuraEngine", "KuraEngines", "KuraStore", "KuraTestSupport"],
            path: "Tests/KuraEngineTestSupport"),

        .testTarget(name: "KuraModelTests", dependencies: ["KuraModel"]),
        .testTarget(name: "KuraCoreTests", dependencies: ["KuraModel", "KuraCore", "KuraTestSupport"]),
        .testTarget(name: "KuraSQLiteTests", dependencies: ["KuraSQLite", "CSQLite", "KuraTestSupport"]),
        .testTarget(name: "KuraHTTPTests", dependencies: ["KuraHTTP", "KuraTestSupport", "KuraCore", "KuraModel"]),
        // The document-store conformance suite, run against every engine (TestEngine.all).
        .testTarget(
            name: "KuraStoreTests",
            dependencies: [
                "KuraStore", "KuraEngineTestSupport", "KuraTestSupport", "KuraStoreTestSupport", "KuraCore",
                "KuraModel",
            ]),
        // What only the SQLite engine has: its writer, schema, query plans, backup.
        .testTarget(
            name: "KuraSQLiteEngineTests",
            dependencies: [
                "KuraSQLiteEngine", "KuraStore", "KuraSQLite", "KuraTestSupport", "KuraStoreTestSupport", "KuraCore",
                "KuraModel",
            ]),
        // Starts its own PostgreSQL 15 (Tests/Support/postgres_server.sh) unless KURA_TEST_POSTGRES_URL is set.
        .testTarget(name: "KuraPostgresTests", dependencies: ["KuraPostgres", "KuraTestSupport"]),
        // What only the PostgreSQL engine has (its schema, batching, notifications, several nodes on one database).
        .testTarget(
            name: "KuraPostgresEngineTests",
            dependencies: [
                "KuraPostgresEngine", "KuraPostgres", "KuraEngine", "KuraStore", "KuraTestSupport",
                "KuraStoreTestSupport", "KuraCore", "KuraModel",
            ]),
        .testTarget(
            name: "KuraAuthTests",
            dependencies: ["KuraAuth", "KuraSQLiteEngine", "KuraTestSupport", "CSodium", "KuraCore", "KuraModel"]),
        .testTarget(
            name: "KuraMailTests",
            dependencies: ["KuraMail", "KuraSQLiteEngine", "KuraTestSupport", "KuraCore", "KuraModel"]),
        // One suite per store seam (accounts and sessions, signing keys, mail outbox), run against every engine
        // (TestEngine.all).
        .testTarget(
            name: "KuraEngineConformanceTests",
            dependencies: [
                "KuraAuth", "KuraMail", "KuraStore", "KuraEngineTestSupport", "KuraSQLiteEngine", "KuraPostgresEngine",
                "KuraSQLite", "KuraCore", "KuraTestSupport", "KuraModel", "KuraPostgres",
            ]),
        .testTarget(name: "KuraRulesTests", dependencies: ["KuraRules", "KuraTestSupport", "KuraCore", "KuraModel"]),
        .testTarget(
            name: "KuraRealtimeTests",
            dependencies: ["KuraRealtime", "KuraStore", "KuraSQLiteEngine", "KuraTestSupport", "KuraCore", "KuraModel"]
        ),
        .testTarget(
            name: "KuraServerTests",
            dependencies: [
                "KuraServer", "KuraHTTP", "KuraStore", "KuraRealtime", "KuraHosting", "KuraSQLiteEngine",
                "KuraTestSupport", "KuraServerTestSupport", "KuraAuth", "KuraCore", "KuraMail", "KuraModel",
                "KuraPostgres", "KuraPostgresEngine", "KuraEngine", "KuraEngines",
            ]),
        // The SDK and `kura-todo` against an in-process server.
        .testTarget(
            name: "KuraClientTests",
            dependencies: [
                "KuraClient", "KuraModel", "KuraServer", "KuraAuth", "KuraTestSupport", "KuraServerTestSupport",
                "KuraCore", "KuraHTTP", "KuraRealtime", "KuraStore",
            ]),
        // The calculator engine against apps/calc/cases.json (shared with the web app's browser test) and its own cases.
        .testTarget(name: "KuraCalcTests", dependencies: ["KuraCalc", "KuraTestSupport"]),
        // KuraQuiz and `kura-quiz` against an in-process server, and apps/quiz/cases.json (shared with the web app).
        .testTarget(
            name: "KuraQuizTests",
            dependencies: ["KuraQuiz", "KuraClient", "KuraServer", "KuraTestSupport", "KuraServerTestSupport"]),
        // KuraTodo against apps/todo/cases.json (shared with the web app), its rules table, an in-process server.
        .testTarget(
            name: "KuraTodoTests",
            dependencies: ["KuraTodo", "KuraClient", "KuraServer", "KuraTestSupport", "KuraServerTestSupport"]),
        // The places app's logic (apps/places/cases.json, the sample) and its searches against an in-process server.
        .testTarget(
            name: "KuraPlacesTests",
            dependencies: ["KuraPlaces", "KuraClient", "KuraServer", "KuraTestSupport", "KuraServerTestSupport"]),
        // KuraNotes and `kura-notes` against an in-process server, and apps/notes/cases.json (shared with the web app).
        .testTarget(
            name: "KuraNotesTests",
            dependencies: ["KuraNotes", "KuraClient", "KuraServer", "KuraTestSupport", "KuraServerTestSupport"]),
        // Runs the real `kura` binary as a child process (crash and restart tests).
        .testTarget(name: "KuraEndToEndTests", dependencies: ["KuraCore", "KuraTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
