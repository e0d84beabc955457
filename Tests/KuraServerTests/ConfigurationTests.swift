import Foundation
import KuraServer
import Testing

/// Every setting that `kura --help` and docs/configuration.md list can be set through its environment variable,
/// and doing so changes the configuration.
@Suite struct ConfigurationTests {
    /// Values tried until one is accepted and changes something; between them they fit every kind of setting.
    static let candidates = [
        "7", "2", "3", "1", "0", "100", "5000", "16384", "false", "true", "warn", "debug", "required", "none",
        "smtp://relay.example:2525", "0.5", "127.0.0.2", "Shop <shop@example.com>", "/tmp/kura-configuration-test",
        "http://app.example", "MyApp",
        // A readable file whose first line is not empty, for the *.passwordFile settings.
        "/etc/passwd",
    ]

    /// Everything the configuration holds, as text, so two configurations can be compared whatever they contain.
    static func dump(_ configuration: KuraConfiguration) -> String {
        var text = ""
        Swift.dump(configuration, to: &text)
        return text
    }

    /// Settings with one allowed value so far (their default): the variable takes effect by refusing others.
    static let singleChoice = ["store.engine"]

    @Test("each setting's environment variable takes effect", arguments: KuraConfiguration.settings.map(\.key))
    func environmentVariableTakesEffect(_ key: String) throws {
        let setting = try #require(KuraConfiguration.settings.first { $0.key == key })
        if Self.singleChoice.contains(key) {
            var configuration = KuraConfiguration()
            #expect(throws: ConfigurationError.self) {
                try configuration.applyEnvironment([setting.environmentName: "no-such-value"])
            }
            return
        }
        let defaults = Self.dump(KuraConfiguration())
        var changed = false
        for value in Self.candidates {
            var configuration = KuraConfiguration()
            guard (try? configuration.applyEnvironment([setting.environmentName: value])) != nil else { continue }
            if Self.dump(configuration) != defaults {
                changed = true
                break
            }
        }
        #expect(changed, "\(setting.environmentName) (\(key)) changed nothing for any of the candidate values")
    }

    @Test("environment names are upper snake case with acronyms kept whole")
    func environmentNames() {
        let names = Dictionary(
            uniqueKeysWithValues: KuraConfiguration.settings.map { ($0.key, $0.environmentName) })
        #expect(names["auth.publicURL"] == "KURA_AUTH_PUBLIC_URL")
        #expect(names["smtp.startTLS"] == "KURA_SMTP_STARTTLS")
        #expect(names["http.maxBodyBytes"] == "KURA_HTTP_MAX_BODY_BYTES")
        #expect(names["auth.sendVerificationOnSignUp"] == "KURA_AUTH_SEND_VERIFICATION_ON_SIGN_UP")
        #expect(KuraConfiguration.Setting.environmentName(for: "a.HTTPServer") == "KURA_A_HTTP_SERVER")
        for name in names.values {
            #expect(name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }, "\(name)")
            #expect(!name.contains("__") && !name.hasSuffix("_"), "\(name)")
        }
        #expect(Set(names.values).count == names.count, "two settings share an environment variable")
    }

    @Test("an unknown store.engine is refused, naming the engines there are; sqlite is the default")
    func unknownStoreEngine() throws {
        var configuration = KuraConfiguration()
        #expect(configuration.store.engine == "sqlite")
        try configuration.set("store.engine", "sqlite")
        let error = try #require(throws: ConfigurationError.self) { try configuration.set("store.engine", "mongodb") }
        #expect(error.message == "store.engine: unknown engine 'mongodb'; the engines are: sqlite, postgres")
        // Set in code, past the parser: the server refuses to start, before it creates the data directory.
        configuration.store.engine = "mongodb"
        configuration.dataDirectory = NSTemporaryDirectory() + "kura-engine-" + UUID().uuidString
        let startError = try #require(throws: ConfigurationError.self) {
            _ = try KuraNode(configuration: configuration)
        }
        #expect(startError.message.contains("the engines are: sqlite, postgres"))
        #expect(!FileManager.default.fileExists(atPath: configuration.dataDirectory))
    }

    @Test("docs/configuration.md lists exactly the settings there are")
    func documentedSettings() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/configuration.md").standardized
        let text = try String(contentsOf: docs, encoding: .utf8)
        // The settings table: rows after its "| key |" header until the first line that is not a row; two keys may
        // share a row ("| `a` / `b` |").
        var documented: Set<String> = []
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| key |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let firstCell = line.dropFirst().prefix { $0 != "|" }
            for part in firstCell.split(separator: "/") {
                let key = part.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"])
                if !key.isEmpty && !key.hasPrefix("-") { documented.insert(key) }
            }
        }
        let settings = Set(KuraConfiguration.settings.map(\.key))
        #expect(settings.subtracting(documented).isEmpty, "undocumented: \(settings.subtracting(documented).sorted())")
        let unknown = documented.subtracting(settings)
        #expect(unknown.isEmpty, "documented but no such setting: \(unknown.sorted())")
    }
}
