import KuraSQLiteEngine
import KuraStore

/// The storage engines `store.engine` can name. A new engine is one more entry here (and its target in
/// Package.swift); nothing else in the server names an engine's types.
enum StoreEngines {
    /// Every engine, the default first.
    static let all: [any StoreEngine.Type] = [SQLiteEngine.self]

    /// The engines' names, for help and error messages (`sqlite`).
    static var names: String { all.map { $0.name }.joined(separator: ", ") }

    /// The engine called `name`; a configuration error naming the engines there are otherwise.
    static func named(_ name: String) throws -> any StoreEngine.Type {
        guard let engine = all.first(where: { $0.name == name }) else {
            throw ConfigurationError("store.engine: unknown engine '\(name)'; the engines are: \(names)")
        }
        return engine
    }

    /// The engine `configuration.store.engine` names, for `configuration.dataDirectory`.
    static func engine(for configuration: KuraConfiguration) throws -> any StoreEngine {
        try named(configuration.store.engine).init(
            configuration: configuration.store, dataDirectory: configuration.dataDirectory)
    }
}
