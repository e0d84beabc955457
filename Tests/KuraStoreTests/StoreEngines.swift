import Foundation
import KuraCore
import KuraModel
import KuraPostgresEngine
import KuraSQLiteEngine
import KuraStore
import KuraTestSupport
import Testing

/// A store under test plus whatever it needs cleaned up afterwards.
final class StoreHarness: @unchecked Sendable {
    let store: any EngineDocumentStore
    private let cleanup: @Sendable () -> Void

    init(store: any EngineDocumentStore, cleanup: @escaping @Sendable () -> Void) {
        self.store = store
        self.cleanup = cleanup
    }

    deinit { cleanup() }
}

/// One `DocumentStore` engine the conformance suite runs against, opened through its `StoreEngine` the way the
/// server opens it.
struct EngineUnderTest: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens a fresh store with `configuration` (the engine's own settings are filled in) and the store's `log`.
    let open:
        @Sendable (_ configuration: StoreConfiguration, _ log: (@Sendable (String) -> Void)?) throws -> StoreHarness
    var testDescription: String { name }

    /// A fresh store with the server's default configuration.
    func make() throws -> StoreHarness { try open(StoreConfiguration(), nil) }

    static let sqlite = EngineUnderTest(name: "SQLite") { configuration, log in
        let directory = try TemporaryDirectory("store")
        let store = try SQLiteEngine(configuration: configuration, dataDirectory: directory.path)
            .openDocuments(log: log)
        return StoreHarness(store: store) {
            store.close()
            directory.remove()
        }
    }

    /// The PostgreSQL engine on a fresh database of the test server (`TestPostgres`), opened as a node opens it.
    static let postgres = EngineUnderTest(name: "PostgreSQL") { configuration, log in
        var configuration = configuration
        configuration.engine = PostgresEngine.name
        configuration.postgres.url = try TestPostgres.freshDatabase()
        let directory = try TemporaryDirectory("store")
        let store = try PostgresEngine(configuration: configuration, dataDirectory: directory.path)
            .openDocuments(log: log)
        return StoreHarness(store: store) {
            store.close()
            directory.remove()
        }
    }

    /// Every engine the conformance suite covers: PostgreSQL too when a server can be had (`TestPostgres`).
    static let all: [EngineUnderTest] = postgresAvailable ? [.sqlite, .postgres] : [.sqlite]

    private static var postgresAvailable: Bool {
        ProcessInfo.processInfo.environment["KURA_TEST_POSTGRES_URL"] != nil
            || FileManager.default.isExecutableFile(atPath: TestPostgres.binaries + "/initdb")
    }
}
