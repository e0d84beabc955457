/// The document database's settings: which engine holds the data (`store.engine`) and what every engine honours
/// (`store.*`, `indexes.*`; docs/configuration.md), and each engine's own settings (`EngineSettings`, declared in the
/// engine's target). The accounts and the outbox have settings of their own.
public struct StoreConfiguration: Sendable {
    /// The engine, by the name `store.engine` gives (`sqlite`, the default).
    public var engine = "sqlite"
    /// Change-log entries older than this are pruned (realtime listeners resume from the log).
    public var changeRetentionSeconds: Int64 = 86_400
    /// Memory for hot documents served without touching the database (0 turns the cache off).
    public var cacheBytes = 64 << 20
    /// Rows a query that a composite index would serve may examine without returning them before it fails with
    /// the index to declare (0: never).
    public var maxScanRows = 10_000
    /// Create the composite index such a query needs instead of failing it (development).
    public var autoCreateIndexes = false
    /// How long the work of one composite index build step may take, roughly (SQLite: a write that arrives during a
    /// step waits for it, so this bounds what a build adds to a write's latency; smaller steps make the build slower).
    public var indexBuildStepMilliseconds = 5
    /// The engines' own settings that differ from their defaults, one value per type (see the subscript).
    private var engineSettings: [any EngineSettings] = []

    /// The defaults.
    public init() {}

    /// The settings of type `Settings` (one engine's own knobs): the defaults until some were set. Engines add a
    /// property for theirs (`configuration.sqlite`, `configuration.postgres`).
    public subscript<Settings: EngineSettings>(_ type: Settings.Type) -> Settings {
        get { engineSettings.lazy.compactMap { $0 as? Settings }.first ?? Settings() }
        set {
            engineSettings.removeAll { $0 is Settings }
            // Only values that differ from the defaults are kept, so a configuration set back to the defaults
            // equals the default one.
            if newValue != Settings() { engineSettings.append(newValue) }
        }
    }
}

/// One engine's own settings (the `store.*` keys only that engine reads), held in `StoreConfiguration` by type so
/// that KuraStore names no engine. The engine's target declares the type, with its defaults as `init()`, and the keys
/// that set it (`NodeEngine.settings`, KuraEngine).
public protocol EngineSettings: Sendable, Equatable {
    /// The defaults.
    init()
}
