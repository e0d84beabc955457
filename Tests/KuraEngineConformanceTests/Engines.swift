import Foundation
import KuraAuth
import KuraCore
import KuraMail
import KuraModel
import KuraPostgres
import KuraPostgresEngine
import KuraSQLiteEngine
import KuraTestSupport

/// One engine under test. Every suite in this target runs once per entry of `Engine.all`: SQLite always, PostgreSQL
/// when the test kit can reach a server (`TestPostgres`: `KURA_TEST_POSTGRES_URL`, or the binaries to start one).
struct Engine: Sendable, CustomStringConvertible {
    let name: String
    /// A fresh, empty database of this engine.
    let makeDatabase: @Sendable () throws -> EngineDatabase

    var description: String { name }

    static let all: [Engine] = postgresAvailable ? [.sqlite, .postgres] : [.sqlite]

    /// What `TestPostgres.available` checks, as a value: a server URL is given, or the binaries are installed.
    static let postgresAvailable =
        ProcessInfo.processInfo.environment["KURA_TEST_POSTGRES_URL"] != nil
        || FileManager.default.isExecutableFile(atPath: TestPostgres.binaries + "/initdb")

    /// The SQLite engine: a database is a data directory.
    static let sqlite = Engine(name: "SQLite") {
        let directory = NSTemporaryDirectory() + "kura-conformance-\(SecureRandom.hex(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return EngineDatabase(
            accounts: { try SQLiteAccountStore(directory: directory) },
            signingKeys: { SigningKeyFile(directory: directory) },
            outbox: { try SQLiteOutboxStore(directory: directory) },
            drop: { try? FileManager.default.removeItem(atPath: directory) })
    }

    /// The PostgreSQL engine: a database is a fresh database on the test server. Each `open…` makes a
    /// `PostgresDatabase` (a connection pool) of its own, as another node would; `drop()` removes the database,
    /// closing whatever connections its stores still hold.
    static let postgres = Engine(name: "PostgreSQL") {
        let url = try TestPostgres.freshDatabase()
        let node: @Sendable () -> PostgresDatabase = { PostgresDatabase(url: url, poolSize: 4) }
        return EngineDatabase(
            accounts: { try PostgresAccountStore(database: node()) },
            signingKeys: { try PostgresSigningKeyStore(database: node()) },
            outbox: { try PostgresOutboxStore(database: node()) },
            drop: { dropPostgresDatabase(url) })
    }

    /// Drops the test database at `url` (made by `TestPostgres.freshDatabase()`), cutting its open connections.
    static func dropPostgresDatabase(_ url: String) {
        let name = url.split(separator: "/").last.map { String($0.prefix { $0 != "?" }) } ?? ""
        try? PostgresConnection(url: TestPostgres.serverURL()).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

/// One database of an engine. Each `open…` call is one more store instance on it, as a second process or node would
/// open it: instances share nothing but the database. Stores opened on it must not outlive `drop()`.
final class EngineDatabase: Sendable {
    private let accounts: @Sendable () throws -> any AccountStore
    private let signingKeys: @Sendable () throws -> any SigningKeyStore
    private let outbox: @Sendable () throws -> any OutboxStore
    private let remove: @Sendable () -> Void

    init(
        accounts: @escaping @Sendable () throws -> any AccountStore,
        signingKeys: @escaping @Sendable () throws -> any SigningKeyStore,
        outbox: @escaping @Sendable () throws -> any OutboxStore, drop: @escaping @Sendable () -> Void
    ) {
        self.accounts = accounts
        self.signingKeys = signingKeys
        self.outbox = outbox
        remove = drop
    }

    func openAccounts() throws -> any AccountStore { try accounts() }
    func openSigningKeys() throws -> any SigningKeyStore { try signingKeys() }
    func openOutbox() throws -> any OutboxStore { try outbox() }

    /// Deletes the database. Call it when the test is done (`defer`): that also keeps the database alive until then.
    func drop() { remove() }
}

/// Runs `body(i)` for `i` in `0..<count` on `count` threads started together, and returns once all are done.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        Thread {
            start.wait()
            body(index)
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}
