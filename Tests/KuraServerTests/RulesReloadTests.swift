import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Testing

/// Loading, hot-reloading and replacing the rules (`<data>/kura.rules`, `/api/admin/rules`), and the `DataAccess`
/// API the realtime listeners use.
@Suite struct RulesReloadTests {
    static let openRules = """
        rules_version = '1';
        match /open/{id} {
          allow read: if true;
        }
        """
    /// Line 3 is broken.
    static let brokenRules = """
        rules_version = '1';
        match /open/{id} {
          allow read: if ;
        }
        """

    @Test("first start writes the default rules to <data>/kura.rules; GET /api/admin/rules returns the source")
    func defaultFile() throws {
        try withRulesKura { server in
            let onDisk = try String(contentsOfFile: rulesPath(server.dataDirectory), encoding: .utf8)
            #expect(onDisk.contains("match /users/{uid}/{rest=**}") && onDisk.contains("match /quizzes/{id}"))
            let response = try server.request("GET", "/api/admin/rules")
            #expect(response.status == 200, "\(response)")
            #expect(response.json["source"] as? String == onDisk)
            let admin = try server.signUpAdmin("root@example.com")
            #expect(try server.request("GET", "/api/admin/rules", as: admin).json["source"] as? String == onDisk)
            let user = try server.signUp("u@example.com")
            expectError(try server.request("GET", "/api/admin/rules", as: user), 403, .permissionDenied)
            expectError(try server.request("GET", "/api/admin/rules", as: nil), 401, .unauthenticated)
        }
    }

    @Test("POST /api/admin/rules: a broken source is 400 INVALID_RULES with line:col and changes nothing")
    func replaceBroken() throws {
        try withRulesKura { server in
            let before = try String(contentsOfFile: rulesPath(server.dataDirectory), encoding: .utf8)
            let response = try server.request(
                "POST", "/api/admin/rules", body: Array(Self.brokenRules.utf8),
                headers: [("Content-Type", "text/plain")])
            expectError(response, 400, .invalidRules)
            let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasPrefix("kura.rules:3:"), "\(message)")
            let json = try server.request("POST", "/api/admin/rules", json: ["source": Self.brokenRules])
            expectError(json, 400, .invalidRules)
            #expect(try String(contentsOfFile: rulesPath(server.dataDirectory), encoding: .utf8) == before)
            #expect(try server.request("GET", "/api/admin/rules").json["source"] as? String == before)
            // The default rules are still in force: quizzes public, `open` not.
            try server.put("quizzes/q", ["t": 1])
            try server.put("open/o", ["t": 1])
            #expect(try server.request("GET", "/api/docs/quizzes/q", as: nil).status == 200)
            expectDenied(try server.request("GET", "/api/docs/open/o", as: nil))
        }
    }

    @Test("POST /api/admin/rules (text or JSON) validates, writes the file and takes effect at once; admins only")
    func replace() throws {
        try withRulesKura { server in
            try server.put("quizzes/q", ["t": 1])
            try server.put("open/o", ["t": 1])
            #expect(try server.request("GET", "/api/docs/quizzes/q", as: nil).status == 200)  // cached now
            let user = try server.signUp("u@example.com")
            let refused = try server.request("POST", "/api/admin/rules", json: ["source": Self.openRules], as: user)
            expectError(refused, 403, .permissionDenied)
            expectDenied(try server.request("GET", "/api/docs/open/o", as: nil))

            let admin = try server.signUpAdmin("root@example.com")
            let text = try server.request(
                "POST", "/api/admin/rules", body: Array(Self.openRules.utf8), headers: [("Content-Type", "text/plain")],
                auth: admin.bearer)
            #expect(text.status == 200, "\(text)")
            #expect(text.json["source"] as? String == Self.openRules)
            #expect(try String(contentsOfFile: rulesPath(server.dataDirectory), encoding: .utf8) == Self.openRules)
            #expect(try server.request("GET", "/api/docs/open/o", as: nil).status == 200)
            expectDenied(try server.request("GET", "/api/docs/quizzes/q", as: nil))  // a cache hit, new rules

            let json = try server.request("POST", "/api/admin/rules", json: ["source": "rules_version = '1';\n"])
            #expect(json.status == 200, "\(json)")
            expectDenied(try server.request("GET", "/api/docs/open/o", as: nil))
            expectError(try server.request("POST", "/api/admin/rules", json: ["text": "x"]), 400, .invalidArgument)
        }
    }

    @Test("editing kura.rules takes effect within the poll interval; a broken edit is logged and the old rules stay")
    func hotReload() throws {
        let logPath = TemporaryDirectory.uniquePath("rules-log")
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(fd)
            unlink(logPath)
        }
        let server = try TestKura(logger: Logger(level: .error, fd: fd)) { configuration in
            configuration.auth = .lowCostForTesting
            try configuration.set("rules.reloadIntervalSeconds", "0.05")
        }
        defer { server.shutdown() }
        try server.put("open/o", ["t": 1])
        #expect(try server.request("GET", "/api/docs/open/o").status == 200)  // in the cache
        expectDenied(try server.request("GET", "/api/docs/open/o", as: nil))

        try server.writeRulesFile(Self.openRules)
        #expect(try waitUntil(timeout: 5) { try server.request("GET", "/api/docs/open/o", as: nil).status == 200 })

        try server.writeRulesFile(Self.brokenRules)
        let logged = waitUntil(timeout: 5) {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return log.contains(rulesPath(server.dataDirectory) + ":3:") && log.contains("ERROR")
        }
        #expect(logged, "\((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        #expect(try server.request("GET", "/api/docs/open/o", as: nil).status == 200)
        #expect(try server.request("GET", "/api/admin/rules").json["source"] as? String == Self.openRules)

        try server.writeRulesFile("rules_version = '1';\n")
        #expect(try waitUntil(timeout: 5) { try server.request("GET", "/api/docs/open/o", as: nil).status == 403 })
    }

    @Test("a server whose kura.rules does not compile fails to start with path:line:col: message")
    func startupFailure() throws {
        let data = try TemporaryDirectory("rules-start").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try Self.brokenRules.write(toFile: rulesPath(data), atomically: true, encoding: .utf8)
        var configuration = KuraConfiguration()
        configuration.dataDirectory = data
        configuration.http.port = 0
        do {
            _ = try KuraNode(configuration: configuration, logger: Logger(level: .error))
            Issue.record("the server started with broken rules")
        } catch let error as ConfigurationError {
            #expect(error.message.hasPrefix(rulesPath(data) + ":3:"), "\(error.message)")
        }
    }

    @Test("kura.rules missing from a data directory that holds a database is a start-up error, not the defaults")
    func missingRulesFile() throws {
        let data = TemporaryDirectory.uniquePath("rules-missing")
        defer { try? FileManager.default.removeItem(atPath: data) }
        var configuration = KuraConfiguration()
        configuration.dataDirectory = data
        configuration.http.port = 0
        // A new directory gets the defaults.
        let first = try KuraNode(configuration: configuration, logger: Logger(level: .error))
        first.stop()
        #expect(FileManager.default.fileExists(atPath: rulesPath(data)))
        // Later the file goes missing (deleted by hand, a partial restore): the server refuses to start and the
        // user's intent is not replaced by the defaults.
        try FileManager.default.removeItem(atPath: rulesPath(data))
        do {
            let second = try KuraNode(configuration: configuration, logger: Logger(level: .error))
            second.stop()
            Issue.record("the server started without its rules file")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(rulesPath(data)) && error.message.contains("missing"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: rulesPath(data)), "the defaults were written")
        // The refused start gave the data directory back: with the file restored, the next start works.
        try Self.openRules.write(toFile: rulesPath(data), atomically: true, encoding: .utf8)
        let third = try KuraNode(configuration: configuration, logger: Logger(level: .error))
        third.stop()
    }

    @Test("rules.reloadIntervalSeconds takes seconds (fractions allowed, 0 = off) and refuses anything else")
    func reloadSetting() throws {
        var configuration = KuraConfiguration()
        #expect(configuration.rulesReloadInterval == 1)
        try configuration.set("rules.reloadIntervalSeconds", "0.25")
        #expect(configuration.rulesReloadInterval == 0.25)
        try configuration.set("rules.reloadIntervalSeconds", "0")
        #expect(configuration.rulesReloadInterval == 0)
        for bad in ["-1", "x", "nan", "100000"] {
            #expect(throws: ConfigurationError.self) { try configuration.set("rules.reloadIntervalSeconds", bad) }
        }
    }

    @Test("CallerResolution answers who a token is, DataAccess whether they may read a document (for listeners)")
    func dataAccess() throws {
        try withRulesKura { server in
            let access = server.kura.dataAccess
            let callers = server.kura.callers
            let a = try server.signUp("a@example.com")
            let caller = try callers.caller(bearerToken: a.idToken)
            guard case .user(let claims) = caller else { throw TestFailure("not a user: \(caller)") }
            #expect(claims.uid == a.uid)
            // Verified once, the token is in memory: the event-loop variant knows it too.
            guard case .user = try callers.cachedCaller(bearerToken: a.idToken) else { throw TestFailure("not cached") }
            guard case .admin = try callers.caller(bearerToken: server.adminKey) else { throw TestFailure("admin") }
            guard case .anonymous = try callers.caller(bearerToken: nil) else { throw TestFailure("anonymous") }
            #expect(throws: APIError(.invalidIDToken, status: 401, message: "the ID token is malformed")) {
                try callers.caller(bearerToken: "nope")
            }

            func document(_ path: String) throws -> Document {
                Document(path: try DocumentPath(path), fields: ["x": 1], createTime: 0, updateTime: 0, version: 1)
            }
            #expect(access.mayRead(caller, try document("users/\(a.uid)/notes/n")))
            #expect(!access.mayRead(caller, try document("users/someone-else/notes/n")))
            #expect(!access.mayRead(.anonymous, try document("users/\(a.uid)/notes/n")))
            #expect(access.mayRead(.anonymous, try document("quizzes/q"), method: .list))
            #expect(access.mayRead(.admin, try document("secrets/s")))
        }
    }
}
