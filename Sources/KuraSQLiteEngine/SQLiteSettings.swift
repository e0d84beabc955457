import KuraEngine
import KuraStore

/// Settings only the SQLite engine reads (`store.checkpointPages`, `store.maxWALBytes`, `store.mmapBytes`).
public struct SQLiteSettings: EngineSettings {
    /// WAL pages written between two checkpoints (run off the writer thread).
    public var checkpointPages = 1000
    /// The WAL's size bound in bytes (the writer waits for a checkpoint past it).
    public var maxWALBytes = 64 << 20
    /// Bytes of the database file each read connection maps into memory (0: read with `pread`).
    public var mmapBytes = 256 << 20

    /// The defaults.
    public init() {}
}

extension StoreConfiguration {
    /// The SQLite engine's own settings.
    public var sqlite: SQLiteSettings {
        get { self[SQLiteSettings.self] }
        set { self[SQLiteSettings.self] = newValue }
    }
}

extension SQLiteEngine {
    /// `store.checkpointPages`, `store.maxWALBytes`, `store.mmapBytes` (docs/configuration.md).
    public static let settings: [EngineSetting] = [
        EngineSetting("store.checkpointPages", help: "WAL pages between two checkpoints (default 1000)") {
            (settings: inout SQLiteSettings, value) in settings.checkpointPages = try value.integer(in: 1...1_000_000)
        },
        EngineSetting("store.maxWALBytes", help: "bound on the WAL's size in bytes (default 67108864)") {
            (settings: inout SQLiteSettings, value) in settings.maxWALBytes = try value.integer(in: 4096...(1 << 40))
        },
        EngineSetting(
            "store.mmapBytes", help: "database bytes readers map into memory; 0: none (default 268435456)"
        ) { (settings: inout SQLiteSettings, value) in settings.mmapBytes = try value.integer(in: 0...(1 << 40)) },
    ]
}
