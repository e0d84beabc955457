import Foundation
import KuraCore
import KuraHTTP
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// A fresh data directory under /tmp, removed when the test ends.
private func withDataDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = TemporaryDirectory.uniquePath("test")
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A `Kura` on a free port with its data in `dataDirectory`, stopped afterwards.
private func withKura<T>(dataDirectory: String, _ body: (KuraNode) throws -> T) throws -> T {
    var configuration = KuraConfiguration()
    configuration.dataDirectory = dataDirectory
    try configuration.set("port", "0")
    try configuration.set("http.eventLoops", "1")
    let kura = try KuraNode(configuration: configuration, logger: Logger(level: .error))
    try kura.start()
    defer { kura.stop() }
    return try body(kura)
}

@Suite struct KuraServerTests {
    @Test("GET /api/health reports ok and the version")
    func health() throws {
        try withDataDirectory { data in
            try withKura(dataDirectory: data) { kura in
                let response = try HTTPClient.get(port: kura.port, "/api/health")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "application/json")
                let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: String]
                #expect(json == ["status": "ok", "version": "0.1.0"])
                #expect(KuraNode.version == "0.1.0")
            }
        }
    }

    @Test("GET / is the HTML landing page")
    func home() throws {
        try withDataDirectory { data in
            try withKura(dataDirectory: data) { kura in
                let response = try HTTPClient.get(port: kura.port, "/")
                try #require(response.status == 200, "body: \(response.body)")
                #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(response.body.hasPrefix("<!doctype html>"))
                #expect(response.body.contains("Kura \(KuraNode.version)"))
            }
        }
    }

    @Test("unknown API paths are JSON 404s")
    func notFound() throws {
        try withDataDirectory { data in
            try withKura(dataDirectory: data) { kura in
                let response = try HTTPClient.get(port: kura.port, "/api/nope")
                #expect(response.status == 404)
                #expect(response.body.contains(#""code":"NOT_FOUND""#))
            }
        }
    }

    @Test("the admin key is made on first start (64 hex characters, mode 0600, data directory 0700) and reused")
    func adminKey() throws {
        try withDataDirectory { data in
            var configuration = KuraConfiguration()
            configuration.dataDirectory = data + "/nested/dir"
            try configuration.set("port", "0")
            let first = try KuraNode(configuration: configuration, logger: Logger(level: .error))
            let key = first.adminKey.value
            #expect(key.count == 64)
            #expect(key.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(first.adminKey.path == configuration.dataDirectory + "/admin.key")

            let attributes = try FileManager.default.attributesOfItem(atPath: first.adminKey.path)
            let mode = try #require(attributes[.posixPermissions] as? NSNumber).intValue
            #expect(mode & 0o777 == 0o600, "mode is \(String(mode & 0o777, radix: 8))")
            // The directory holds password hashes and signing keys too: owner only.
            let directory = try FileManager.default.attributesOfItem(atPath: configuration.dataDirectory)
            let directoryMode = try #require(directory[.posixPermissions] as? NSNumber).intValue
            #expect(directoryMode & 0o777 == 0o700, "mode is \(String(directoryMode & 0o777, radix: 8))")
            let onDisk = try String(contentsOfFile: first.adminKey.path, encoding: .utf8)
            #expect(onDisk.trimmingCharacters(in: .whitespacesAndNewlines) == key)

            // One server owns a data directory at a time: a second is refused until the first has stopped.
            let refused = #expect(throws: ConfigurationError.self) {
                try KuraNode(configuration: configuration, logger: Logger(level: .error))
            }
            #expect(
                refused?.message.contains("is in use by process \(getpid())") == true, "\(String(describing: refused))")
            first.stop()
            let second = try KuraNode(configuration: configuration, logger: Logger(level: .error))
            defer { second.stop() }
            #expect(second.adminKey.value == key)
            #expect(second.adminKey.matches(key))
            #expect(!second.adminKey.matches(String(key.dropLast()) + (key.last == "0" ? "1" : "0")))
            #expect(!second.adminKey.matches(nil))

            var otherConfiguration = configuration
            otherConfiguration.dataDirectory = data + "/other"
            let other = try KuraNode(configuration: otherConfiguration, logger: Logger(level: .error))
            #expect(other.adminKey.value != key)
        }
    }

    @Test("an admin key file without a usable key is an error, not silently replaced")
    func unusableAdminKey() throws {
        try withDataDirectory { data in
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try "short\n".write(toFile: data + "/admin.key", atomically: true, encoding: .utf8)
            var configuration = KuraConfiguration()
            configuration.dataDirectory = data
            #expect(throws: ConfigurationError.self) {
                try KuraNode(configuration: configuration, logger: Logger(level: .error))
            }
        }
    }
}

@Suite struct KuraConfigurationTests {
    @Test("a config file is overridden by the environment, which is overridden by set()")
    func precedence() throws {
        try withDataDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let file = dir + "/kura.json"
            try #"{"port": 1111, "data": "/from/file", "http": {"maxBodyBytes": 100, "idleTimeoutMs": 5000}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)

            var configuration = KuraConfiguration()
            try configuration.applyFile(at: file)
            #expect(configuration.http.port == 1111)
            #expect(configuration.http.limits.maxBodyBytes == 100)

            try configuration.applyEnvironment([
                "KURA_PORT": "2222", "KURA_HTTP_MAX_BODY_BYTES": "200", "HOME": "/root", "KURA_NOT_A_SETTING": "x",
            ])
            try configuration.set("port", "3333")

            #expect(configuration.http.port == 3333)  // set beats env and file
            #expect(configuration.http.limits.maxBodyBytes == 200)  // env beats file
            #expect(configuration.http.idleTimeoutMs == 5000)  // file beats default
            #expect(configuration.dataDirectory == "/from/file")
            #expect(configuration.http.requestTimeoutMs == 30_000)  // default stands
        }
    }

    @Test("every setting can be given by key, with booleans and numbers from JSON")
    func fileValueTypes() throws {
        try withDataDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let file = dir + "/kura.json"
            try #"{"logLevel": "warn", "host": "0.0.0.0", "http": {"eventLoops": 3, "shutdownGraceMs": 0}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            var configuration = KuraConfiguration()
            try configuration.applyFile(at: file)
            #expect(configuration.logLevel == .warn)
            #expect(configuration.http.host == "0.0.0.0")
            #expect(configuration.http.eventLoops == 3)
            #expect(configuration.http.shutdownGraceMs == 0)
        }
    }

    @Test("unknown keys are errors in set() and in files")
    func unknownKey() throws {
        var configuration = KuraConfiguration()
        let error = #expect(throws: ConfigurationError.self) { try configuration.set("http.maxBodySize", "1") }
        #expect(error?.message.contains("http.maxBodySize") == true)

        try withDataDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let file = dir + "/kura.json"
            try #"{"http": {"maxBodySize": 1}}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let fileError = #expect(throws: ConfigurationError.self) { try configuration.applyFile(at: file) }
            #expect(fileError?.message.contains("http.maxBodySize") == true)
            #expect(fileError?.message.contains(file) == true)
        }
    }

    @Test(
        "bad values are errors that name the key",
        arguments: [
            ("port", "abc"), ("port", "70000"), ("port", "-1"), ("port", "1.5"), ("port", ""),
            ("http.maxBodyBytes", "ten"), ("http.eventLoops", "0"), ("http.maxHeaderBytes", "100"),
            ("http.requestTimeoutMs", "5"), ("logLevel", "loud"),
        ])
    func badValue(key: String, value: String) {
        var configuration = KuraConfiguration()
        let before = configuration.http.port
        let error = #expect(throws: ConfigurationError.self) { try configuration.set(key, value) }
        #expect(error?.message.contains(key) == true, "message: \(error?.message ?? "")")
        #expect(configuration.http.port == before)
    }

    @Test("a bad environment value names the variable")
    func badEnvironmentValue() {
        var configuration = KuraConfiguration()
        let error = #expect(throws: ConfigurationError.self) {
            try configuration.applyEnvironment(["KURA_HTTP_MAX_BODY_BYTES": "lots"])
        }
        #expect(error?.message.contains("KURA_HTTP_MAX_BODY_BYTES") == true)
    }

    @Test("a config file that is not a JSON object is an error")
    func badFile() throws {
        try withDataDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var configuration = KuraConfiguration()
            for (name, text) in [("array.json", "[1, 2]"), ("broken.json", "{\"port\": ")] {
                try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
                #expect(throws: ConfigurationError.self) { try configuration.applyFile(at: dir + "/" + name) }
            }
            #expect(throws: ConfigurationError.self) { try configuration.applyFile(at: dir + "/missing.json") }
        }
    }

    @Test(
        "environment variable names are KURA_ plus the key in upper snake case",
        arguments: [
            ("http.maxBodyBytes", "KURA_HTTP_MAX_BODY_BYTES"),
            ("port", "KURA_PORT"),
            ("logLevel", "KURA_LOG_LEVEL"),
            ("http.eventLoops", "KURA_HTTP_EVENT_LOOPS"),
            ("http.requestTimeoutMs", "KURA_HTTP_REQUEST_TIMEOUT_MS"),
            ("http.maxPipelinedRequests", "KURA_HTTP_MAX_PIPELINED_REQUESTS"),
        ])
    func environmentName(key: String, variable: String) throws {
        let setting = try #require(KuraConfiguration.settings.first { $0.key == key })
        #expect(setting.environmentName == variable)
        var configuration = KuraConfiguration()
        // The variable really sets the key: a bad value through it must fail, naming it.
        let error = #expect(throws: ConfigurationError.self) {
            try configuration.applyEnvironment([variable: "not valid"])
        }
        if key != "host" && key != "data" { #expect(error?.message.contains(variable) == true) }
    }

    @Test("every setting has a distinct key and environment variable")
    func settingsAreDistinct() {
        let keys = KuraConfiguration.settings.map(\.key)
        let names = KuraConfiguration.settings.map(\.environmentName)
        #expect(Set(keys).count == keys.count)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.hasPrefix("KURA_") && $0 == $0.uppercased() })
    }
}
