import Foundation
import KuraCore
import KuraStore

/// One setting only an engine reads, declared by the engine (`NodeEngine.settings`): its dotted key, its help line
/// with the default, and how a value sets the engine's `EngineSettings`. The server lists it among its own settings,
/// so it is set like any other: config file, `KURA_` environment variable, flag (docs/configuration.md).
public struct EngineSetting: Sendable {
    /// The dotted key (`store.poolSize`).
    public let key: String
    /// The line `kura --help` prints, ending with the default.
    public let help: String
    private let set: @Sendable (inout StoreConfiguration, SettingText) throws -> Void

    /// The setting `key` of the engine whose settings are `Settings`: `apply` parses the text into them, throwing a
    /// `SettingError` (through `SettingText`'s parsers) for a value it refuses.
    public init<Settings: EngineSettings>(
        _ key: String, help: String, _ apply: @escaping @Sendable (inout Settings, SettingText) throws -> Void
    ) {
        self.key = key
        self.help = help
        set = { configuration, value in try apply(&configuration[Settings.self], value) }
    }

    /// Sets `text` in `configuration`'s settings of the engine; a value the setting refuses throws a
    /// `SettingError` that names the key.
    public func apply(_ text: String, to configuration: inout StoreConfiguration) throws(SettingError) {
        do { try set(&configuration, SettingText(key: key, text: text)) } catch let error as SettingError {
            throw error
        } catch {
            throw SettingError("\(key): \(error)")
        }
    }
}

/// A setting's value as given (config file, environment or flag) with the key it was given for, and the parsers
/// the settings share: a refused value throws a `SettingError` naming the key, worded the same for every setting.
public struct SettingText: Sendable {
    /// The setting's key, for messages.
    public let key: String
    /// The value as given.
    public let text: String

    public init(key: String, text: String) {
        self.key = key
        self.text = text
    }

    /// The text without the spaces around it.
    public var trimmed: String { text.trimmingSpaces() }

    /// The text as an integer within `range`.
    public func integer(in range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let value = Int(trimmed), range.contains(value) else {
            throw SettingError(
                "\(key): expected an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// The first line of the file the text names (a password kept out of the command line), without its line end;
    /// refused when the file cannot be read or the line is empty.
    public func firstLineOfFile() throws(SettingError) -> String {
        let contents: String
        do { contents = try String(contentsOfFile: trimmed, encoding: .utf8) } catch {
            throw SettingError("\(key): cannot read \(text): \(error.localizedDescription)")
        }
        let line = contents.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
        guard !line.isEmpty else { throw SettingError("\(key): \(text) is empty; its first line is the password") }
        return String(line)
    }
}

/// A value a setting refuses, reported to the user as is (the server reports it as its `ConfigurationError`).
public struct SettingError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
