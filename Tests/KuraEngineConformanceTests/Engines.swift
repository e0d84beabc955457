import Foundation
import KuraAuth
import KuraEngineTestSupport
import KuraMail
import KuraPostgresEngine
import KuraStore

/// One engine under test. Every suite in this target runs once per entry of `Engine.all`: every engine of
/// `StoreEngines.all` this machine can run (`TestEngine`; PostgreSQL when the test kit can reach a server).
struct Engine: Sendable, CustomStringConvertible {
    let engine: TestEngine

    var description: String { engine.name }

    static let all = TestEngine.all.map(Engine.init)

    /// A fresh, empty database of this engine. Each PostgreSQL instance opened on it keeps at most 4 connections, so
    /// that the several instances of a test, and tests running at once, stay within the test server's limit.
    func makeDatabase() throws -> EngineDatabase {
        var configuration = StoreConfiguration()
        configuration.postgres.poolSize = 4
        return EngineDatabase(try engine.fresh(configuration))
    }
}

/// One database of an engine. Each `open…` call is one more store instance on it, through one more instance of the
/// engine, as a second process or node would open it: instances share nothing but the database. Stores opened on it
/// must not outlive `drop()`.
final class EngineDatabase: Sendable {
    private let database: TestEngineDatabase

    init(_ database: TestEngineDatabase) { self.database = database }

    func openAccounts() throws -> any AccountStore { try database.open().openAccounts() }
    func openSigningKeys() throws -> any SigningKeyStore { try database.open().openSigningKeys() }
    func openOutbox() throws -> any OutboxStore { try database.open().openOutbox() }

    /// Deletes the database. Call it when the test is done (`defer`): that also keeps the database alive until then.
    func drop() { database.drop() }
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
