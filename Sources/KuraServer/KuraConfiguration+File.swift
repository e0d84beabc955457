import Foundation
import KuraEngine

extension KuraConfiguration {
    /// Applies a JSON config file: `{"port": 8090, "http": {"maxBodyBytes": 1048576}}`. Nested objects become
    /// dotted keys; values may be strings, numbers, booleans or lists of them (joined with commas).
    public mutating func applyFile(at path: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError("cannot read config file \(path): \(error.localizedDescription)")
        }
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigurationError("config file \(path) is not valid JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any] else {
            throw ConfigurationError("config file \(path) must hold a JSON object")
        }
        for (key, value) in Self.flatten(object, prefix: "") {
            do { try set(key, value) } catch let error as ConfigurationError {
                throw ConfigurationError("\(path): \(error.message)")
            }
        }
    }

    private static func flatten(_ object: [String: Any], prefix: String) -> [(String, String)] {
        var out: [(String, String)] = []
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let name = prefix.isEmpty ? key : prefix + "." + key
            switch value {
            case let nested as [String: Any]: out += flatten(nested, prefix: name)
            case let number as NSNumber where String(cString: number.objCType) == "c":
                out.append((name, number.boolValue ? "true" : "false"))
            case let number as NSNumber: out.append((name, number.stringValue))
            case let string as String: out.append((name, string))
            // A list (`"trustedProxies": ["10.0.0.0/8", "::1"]`) is its items separated by commas.
            case let list as [Any]:
                out.append((name, list.map { ($0 as? String) ?? String(describing: $0) }.joined(separator: ",")))
            default: out.append((name, String(describing: value)))
            }
        }
        return out
    }

    /// The first line of the file at `path` (a password kept out of the command line), without its line end;
    /// throws, naming `key`, when the file cannot be read or the line is empty (`SettingText.firstLineOfFile`, as
    /// the engines' settings read theirs).
    static func secret(fromFile path: String, _ key: String) throws -> String {
        do throws(SettingError) { return try SettingText(key: key, text: path).firstLineOfFile() } catch {
            throw ConfigurationError(error.message)
        }
    }
}
