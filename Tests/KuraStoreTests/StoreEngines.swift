import KuraEngineTestSupport
import KuraStore
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
/// server opens it, on a fresh database (`TestEngine`).
struct EngineUnderTest: Sendable, CustomTestStringConvertible {
    let engine: TestEngine
    var testDescription: String { engine.name }

    /// Opens a fresh store with `configuration` and the store's `log`; the harness drops its database.
    func open(_ configuration: StoreConfiguration, _ log: (@Sendable (String) -> Void)? = nil) throws -> StoreHarness {
        let database = try engine.fresh(configuration)
        let store = try database.open().openDocuments(log: log)
        return StoreHarness(store: store) {
            store.close()
            database.drop()
        }
    }

    /// A fresh store with the server's default configuration.
    func make() throws -> StoreHarness { try open(StoreConfiguration()) }

    static let sqlite = EngineUnderTest(engine: .named("sqlite"))

    /// Every engine the conformance suite covers: `StoreEngines.all`, PostgreSQL when a server can be had.
    static let all = TestEngine.all.map(EngineUnderTest.init)
}
