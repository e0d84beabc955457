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
    let store: any DocumentStore
    private let cleanup: @Sendable () -> Void

    init(store: any DocumentStore, cleanup: @escaping @Sendable () -> Void) {
        self.store = store
        self.cleanup = cleanup
    }

    deinit { cleanup() }
}

/// One `DocumentStore` engine the conformance suite runs against, opened through its `StoreEngine` the way the
/// server opens it. Add PostgreSQL here (issue 17) and every conformance test runs on it too.
struct EngineUnderTest: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () throws -> StoreHarness
    var testDescription: String { name }

    static let sqlite = EngineUnderTest(name: "SQLite") {
        let directory = try TemporaryDirectory("store")
        let store = try SQLiteEngine(configuration: StoreConfiguration(), dataDirectory: directory.path)
            .openDocuments(log: nil)
        return StoreHarness(store: store) {
            store.close()
            directory.remove()
        }
    }

    /// The PostgreSQL engine on a fresh database of the test server (`TestPostgres`), opened as a node opens it.
    static let postgres = EngineUnderTest(name: "PostgreSQL") {
        var configuration = StoreConfiguration()
        configuration.engine = PostgresEngine.name
        configuration.postgres.url = try TestPostgres.freshDatabase()
        let directory = try TemporaryDirectory("store")
        let store = try PostgresEngine(configuration: configuration, dataDirectory: directory.path)
            .openDocuments(log: nil)
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
