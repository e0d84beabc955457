import KuraEngine
import KuraEngines
import KuraStore
import KuraTestSupport
import Testing

/// An engine of `StoreEngines.all` as the tests open it: the conformance suites (Tests/KuraStoreTests,
/// Tests/KuraEngineConformanceTests) run once per entry of `TestEngine.all`, so a new engine in that list is tested
/// with nothing more to write.
public struct TestEngine: Sendable, CustomTestStringConvertible {
    /// The engine.
    public let type: any NodeEngine.Type

    /// Its `store.engine` name (`sqlite`, `postgres`), which also names the tests' runs.
    public var name: String { type.name }
    public var testDescription: String { name }

    /// Every engine of `StoreEngines.all` this machine can run: an engine whose data lives on a server only when the
    /// test kit can reach one (PostgreSQL: `TestPostgres.isAvailable`).
    public static let all: [TestEngine] = StoreEngines.all.map(TestEngine.init).filter {
        TestServer.servers[$0.name]?.isAvailable() ?? true
    }

    /// The engine `store.engine = name` selects (run whether or not it is in `all`).
    public static func named(_ name: String) -> TestEngine {
        guard let type = StoreEngines.engine(named: name) else { fatalError("no engine named \(name)") }
        return TestEngine(type: type)
    }

    /// A fresh, empty database of this engine made with `configuration` (`engine` set to this one): a new data
    /// directory and, for an engine whose data lives on a server, a new database there (`TestServer`).
    public func fresh(_ configuration: StoreConfiguration = StoreConfiguration()) throws -> TestEngineDatabase {
        var configuration = configuration
        configuration.engine = name
        let directory = try TemporaryDirectory("engine")
        var dropOnServer: @Sendable () -> Void = {}
        if let server = TestServer.servers[name] {
            let database = try server.create()
            dropOnServer = database.drop
            for (key, value) in database.settings {
                guard let setting = type.settings.first(where: { $0.key == key }) else {
                    throw TestFailure("the \(name) engine has no setting \(key)")
                }
                try setting.apply(value, to: &configuration)
            }
        }
        let dropDatabase = dropOnServer
        return TestEngineDatabase(type: type, configuration: configuration, dataDirectory: directory.path) {
            dropDatabase()
            directory.remove()
        }
    }
}

/// One database of an engine made for a test. Each `open()` is one more instance of the engine on it, as a second
/// process or node would open it: instances share nothing but the database. Call `drop()` when the test is done,
/// after closing what was opened on it.
public final class TestEngineDatabase: Sendable {
    private let type: any NodeEngine.Type
    /// The configuration every instance is made with.
    public let configuration: StoreConfiguration
    /// The data directory every instance is made with.
    public let dataDirectory: String
    private let remove: @Sendable () -> Void

    init(
        type: any NodeEngine.Type, configuration: StoreConfiguration, dataDirectory: String,
        drop: @escaping @Sendable () -> Void
    ) {
        self.type = type
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        remove = drop
    }

    /// One more instance of the engine on this database (it opens nothing yet).
    public func open() -> any NodeEngine { type.init(configuration: configuration, dataDirectory: dataDirectory) }

    /// Deletes the database and the data directory.
    public func drop() { remove() }
}

/// How the tests get a database of an engine whose data lives on a server rather than in the data directory, by
/// the engine's `store.engine` name: whether this machine can reach a server, and a fresh database there as the
/// engine's own settings (`NodeEngine.settings` keys) with the way to drop it. An engine missing here needs nothing
/// but a fresh data directory (SQLite).
struct TestServer: Sendable {
    let isAvailable: @Sendable () -> Bool
    let create: @Sendable () throws -> (settings: [(String, String)], drop: @Sendable () -> Void)

    static let servers: [String: TestServer] = [
        "postgres": TestServer(isAvailable: { TestPostgres.isAvailable }) {
            let url = try TestPostgres.freshDatabase()
            return ([("store.url", url)], { TestPostgres.dropDatabase(url) })
        }
    ]
}
