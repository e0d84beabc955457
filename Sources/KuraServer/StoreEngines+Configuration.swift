import KuraEngine
import KuraEngines

extension StoreEngines {
    /// The engine called `name`; a configuration error naming the engines there are otherwise.
    static func named(_ name: String) throws -> any NodeEngine.Type {
        guard let engine = engine(named: name) else {
            throw ConfigurationError("store.engine: unknown engine '\(name)'; the engines are: \(names)")
        }
        return engine
    }

    /// The engine `configuration.store.engine` names, for `configuration.dataDirectory`.
    static func engine(for configuration: KuraConfiguration) throws -> any NodeEngine {
        try named(configuration.store.engine).init(
            configuration: configuration.store, dataDirectory: configuration.dataDirectory)
    }
}

extension KuraConfiguration.Setting {
    /// An engine's own setting among the server's: set like any other, its refusals reported as
    /// `ConfigurationError`s.
    init(_ setting: EngineSetting) {
        self.init(key: setting.key, help: setting.help) { configuration, text in
            do throws(SettingError) { try setting.apply(text, to: &configuration.store) } catch {
                throw ConfigurationError(error.message)
            }
        }
    }
}
