import KuraEngine
import KuraPostgresEngine
import KuraSQLiteEngine

/// The storage engines this build has, the ones `store.engine` can name: the one list the server, its settings and
/// every engine conformance suite read. A new engine is a target of its own with a `NodeEngine` (KuraEngine) and one
/// more entry here (docs/architecture.md, "Adding an engine").
public enum StoreEngines {
    /// Every engine, the default first.
    public static let all: [any NodeEngine.Type] = [SQLiteEngine.self, PostgresEngine.self]

    /// The engines' names, for help and error messages (`sqlite, postgres`).
    public static var names: String { all.map { $0.name }.joined(separator: ", ") }

    /// The engine `store.engine = name` selects, if this build has it.
    public static func engine(named name: String) -> (any NodeEngine.Type)? {
        all.first { $0.name == name }
    }

    /// Every engine's own settings, engine by engine in the order of `all`.
    public static var settings: [EngineSetting] { all.flatMap { $0.settings } }
}
