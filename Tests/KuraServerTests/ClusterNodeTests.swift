import Foundation
import KuraCore
import KuraEngine
import KuraEngines
import KuraModel
import KuraPostgres
import KuraPostgresEngine
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Testing

@testable import KuraServer

/// Whether `store.engine = postgres` can start a node in this build.
let postgresEngineBuilt = StoreEngines.all.contains { $0.name == "postgres" }

/// Two `kura` nodes in this process on one PostgreSQL database, each with its own data directory: what one node
/// does, the other must see at once (docs/design/scaling.md, "What nodes tell each other"). Every periodic backstop
/// is set to an hour (token re-checks, listen-stream re-checks, the change-log and rules polls), so only the
/// notifications between nodes can make these tests pass; each wait below is an upper bound for failing, not a
/// timing claim.
@Suite(TestPostgres.available, .enabled(if: postgresEngineBuilt, "the PostgreSQL engine is not built in"))
struct ClusterNodeTests {

    /// Nodes `a` and `b` on a new database; `rules` is written to `a`'s data directory before it starts (it then
    /// publishes them), `b` starts with none and takes them from the database.
    static func withTwoNodes<T>(
        rules: String? = nil, configure: @escaping (inout KuraConfiguration) -> Void = { _ in },
        _ body: (TestKura, TestKura, String) throws -> T
    ) throws -> T {
        let url = try TestPostgres.freshDatabase()
        let setUp: (inout KuraConfiguration) throws -> Void = { configuration in
            configuration.store.engine = "postgres"
            configuration.store.postgres.url = url
            configuration.store.postgres.poolSize = 4
            configuration.auth.tokenRecheckInterval = 3600
            configuration.realtime.authCheckSeconds = 3600
            configuration.clusterPollInterval = 3600
            configure(&configuration)
        }
        let a = try TestKura(rules: rules, configure: setUp)
        defer { a.shutdown() }
        let b = try TestKura(configure: setUp)
        defer { b.shutdown() }
        return try body(a, b, url)
    }

    enum Withdrawal: String, CaseIterable, CustomTestStringConvertible {
        case signOut, disable, delete, passwordByAdmin, claimsChange
        var testDescription: String { rawValue }
    }

    @Test(
        "a revocation on one node refuses the token on the other and ends its streams there",
        arguments: Withdrawal.allCases)
    func revocationCrossesNodes(_ how: Withdrawal) throws {
        try Self.withTwoNodes { a, b, _ in
            let user = try a.signUp("a@example.com")
            try a.put("users/\(user.uid)/notes/n1", ["text": "before"])
            // B verifies the token once and caches it (and the account) for the next hour.
            #expect(try b.me(user.idToken).status == 200)
            #expect(try b.me(user.idToken).status == 200)
            let stream = try b.listen("?doc=users/\(user.uid)/notes/n1", auth: user.bearer)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            switch how {
            case .signOut:
                #expect(try a.request("POST", "/api/auth/signout", json: [:], token: user.idToken).status == 200)
            case .disable: try a.adminUpdate(user.uid, ["disabled": true])
            case .delete: #expect(try a.request("DELETE", "/api/admin/users/\(user.uid)").status == 204)
            case .passwordByAdmin: try a.adminUpdate(user.uid, ["password": "another-pw"])
            case .claimsChange: try a.adminUpdate(user.uid, ["customClaims": ["role": "reader"]])
            }
            let revoked = try stream.expect("auth_revoked")
            #expect(revoked.json["code"] as? String == "UNAUTHENTICATED")
            // B heard it before ending the stream: its caches already forgot the token's verification.
            if how == .claimsChange {
                #expect(try b.me(user.idToken).status == 200)
                let me = try b.request("GET", "/api/auth/me", token: user.idToken).json["user"] as? [String: Any]
                let claims = me?["customClaims"]
                #expect((claims as? [String: Any])?["role"] as? String == "reader")
            } else {
                #expect(try b.me(user.idToken).status == 401)
            }
        }
    }

    @Test("an account change on one node reaches the other's account cache")
    func accountChangeCrossesNodes() throws {
        try Self.withTwoNodes { a, b, _ in
            let user = try a.signUp("a@example.com", displayName: "Before")
            func name() -> String? {
                ((try? b.me(user.idToken))?.json["user"] as? [String: Any])?["displayName"] as? String
            }
            #expect(name() == "Before")
            #expect(name() == "Before")
            // By the user, then by the administrator.
            let patched = try a.request("PATCH", "/api/auth/me", json: ["displayName": "Middle"], token: user.idToken)
            #expect(patched.status == 200)
            #expect(waitUntil(timeout: 10) { name() == "Middle" })
            try a.adminUpdate(user.uid, ["displayName": "After"])
            #expect(waitUntil(timeout: 10) { name() == "After" })
        }
    }

    @Test("rules published on one node are in force on the other, remembered decisions dropped; one version each")
    func rulesSwitch() throws {
        try Self.withTwoNodes { a, b, url in
            let user = try a.signUp("a@example.com")
            try a.put("users/\(user.uid)/notes/n1", ["text": "hello"])
            // Read twice on B: the second is answered from the cache and a remembered decision.
            for _ in 0..<2 {
                #expect(try b.request("GET", "/api/docs/users/\(user.uid)/notes/n1", as: user).status == 200)
            }
            let closed = "rules_version = '1';\nmatch /quizzes/{id} {\n  allow read: if true;\n}\n"
            #expect(try a.request("POST", "/api/admin/rules", body: Array(closed.utf8)).status == 200)
            #expect(
                waitUntil(timeout: 10) {
                    (try? b.request("GET", "/api/docs/users/\(user.uid)/notes/n1", as: user).status) == 403
                })
            #expect(b.kura.rules.current.source == closed)
            #expect(try String(contentsOfFile: b.dataDirectory + "/kura.rules", encoding: .utf8) == closed)
            #expect(b.kura.rules.sharedVersion == a.kura.rules.sharedVersion)

            // The file is how an operator publishes: an edit on B is in force on A, as one new version.
            let reopened = RuleSetSources.ownerOnly
            try b.writeRulesFile(reopened)
            #expect(waitUntil(timeout: 10) { a.kura.rules.current.source == reopened })
            #expect(
                waitUntil(timeout: 10) {
                    (try? a.request("GET", "/api/docs/users/\(user.uid)/notes/n1", as: user).status) == 200
                })
            let versions = try TestThread {
                try PostgresConnection(url: url).query("SELECT count(*) FROM rules").int(0, 0)
            }.join()
            #expect(versions == 3)
            #expect(a.kura.rules.sharedVersion == 3 && b.kura.rules.sharedVersion == 3)
        }
    }

    @Test("a key rotation anywhere is seen by every node: the new key signs and every node publishes it")
    func keyRotation() throws {
        try Self.withTwoNodes { a, b, _ in
            let before = try Self.activeKid(b)
            #expect(try Self.activeKid(a) == before)
            let kid = try TestThread { try KuraNode.rotateSigningKey(configuration: a.kura.configuration) }.join()
            #expect(kid != before)
            #expect(waitUntil(timeout: 10) { (try? Self.activeKid(a)) == kid && (try? Self.activeKid(b)) == kid })
            let session = try b.signUp("k@example.com")
            #expect(Self.kid(ofToken: session.idToken) == kid)
            #expect(try a.me(session.idToken).status == 200)
        }
    }

    @Test("a write through one node is never answered from the other's cache afterwards")
    func documentCache() throws {
        try Self.withTwoNodes { a, b, _ in
            try a.put("items/x", ["n": 1])
            #expect(try b.request("GET", "/api/docs/items/x").json["data"] as? [String: Int] == ["n": 1])
            // b reads it into its cache. b's change-log follower may apply a's write after b's first reads and
            // forget the entry it just cached (a miss, never a stale answer), so read until the entry stays.
            #expect(
                waitUntil(timeout: 10) {
                    (try? b.request("GET", "/api/docs/items/x").status) == 200
                        && (try? b.cachedVersion("items/x")) != nil
                })
            let cached = try #require(try b.cachedVersion("items/x"))
            try a.put("items/x", ["n": 2])
            #expect(waitUntil(timeout: 10) { (try? b.cachedVersion("items/x")) != cached })
            #expect(try b.request("GET", "/api/docs/items/x").json["data"] as? [String: Int] == ["n": 2])
            #expect(try a.request("DELETE", "/api/docs/items/x").status == 204)
            #expect(waitUntil(timeout: 10) { (try? b.request("GET", "/api/docs/items/x").status) == 404 })
        }
    }

    @Test("a listener on one node gets the other's writes in order, once each, and resumes on either node")
    func listenerAcrossNodes() throws {
        try Self.withTwoNodes { a, b, _ in
            let query: [String: Any] = ["collection": "items"]
            let stream = try b.listen("?query=\(queryParameter(query))")
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            let count = 30
            for index in 0..<count { try a.put("items/i\(index)", ["n": index]) }
            var seen: [String] = []
            var firstEventID: String?
            var countAtFirstEvent = 0
            while seen.count < count, let event = try stream.next(timeout: 10) {
                guard event.name == "changes" else { continue }
                seen += ListenTests.kinds(event)
                if firstEventID == nil {
                    firstEventID = event.lastEventID
                    countAtFirstEvent = seen.count
                }
            }
            #expect(seen == (0..<count).map { "added i\($0)" })
            // Resuming from B's first event on A replays exactly the rest, in order.
            let resumed = try a.listen(
                "?query=\(queryParameter(query))", headers: [("Last-Event-ID", try #require(firstEventID))])
            _ = try resumed.expect("connected")
            var replayed: [String] = []
            while replayed.count < count - countAtFirstEvent, let event = try resumed.next(timeout: 10) {
                if event.name == "changes" { replayed += ListenTests.kinds(event) }
            }
            #expect(replayed == (countAtFirstEvent..<count).map { "added i\($0)" })
        }
    }

    @Test("every node accepts the admin key the first node made, and writes it to its own data directory")
    func sharedAdminKey() throws {
        try Self.withTwoNodes { a, b, _ in
            #expect(a.kura.adminKey.value == b.kura.adminKey.value)
            let file = try String(contentsOfFile: b.dataDirectory + "/admin.key", encoding: .utf8)
            #expect(file.trimmingCharacters(in: .whitespacesAndNewlines) == a.kura.adminKey.value)
        }
    }

    @Test("a node whose notifications connection dropped forgets what it cached and reads rules and keys again")
    func resyncAfterReconnect() throws {
        try Self.withTwoNodes { a, b, url in
            let user = try a.signUp("a@example.com")
            #expect(try b.me(user.idToken).status == 200)
            let newRules = RuleSetSources.ownerOnly + "// published while nobody listened\n"
            // Changes nobody is told of, as if B had missed their notifications.
            let uid = user.uid
            try TestThread {
                let connection = try PostgresConnection(url: url)
                try connection.query("UPDATE sessions SET revoked = true WHERE uid = $1", [.text(uid)])
                try connection.query(
                    "INSERT INTO rules (version, source) SELECT max(version) + 1, $1 FROM rules", [.text(newRules)])
            }.join()
            // B's caches still answer: nothing told it.
            #expect(try b.me(user.idToken).status == 200)
            #expect(b.kura.rules.current.source != newRules)
            // Both nodes' listening connections, as a database restart would.
            let listeners = [a, b].compactMap {
                ($0.kura.cluster.channel as? PostgresClusterChannel)?.listenerProcessID
            }
            #expect(listeners.count == 2 && !listeners.contains(0))
            try TestThread {
                let connection = try PostgresConnection(url: url)
                for pid in listeners {
                    try connection.query("SELECT pg_terminate_backend($1::int)", [.int(Int64(pid))])
                }
            }.join()
            #expect(waitUntil(timeout: 10) { (try? b.me(user.idToken).status) == 401 })
            #expect(waitUntil(timeout: 10) { b.kura.rules.current.source == newRules })
        }
    }

    @Test("a node started after missing a publication takes it; a file edited while it was down is published")
    func rulesAcrossRestarts() throws {
        try Self.withTwoNodes { a, b, url in
            b.stop()
            let fromAPI = RuleSetSources.ownerOnly + "// through the API while b was down\n"
            #expect(try a.request("POST", "/api/admin/rules", body: Array(fromAPI.utf8)).status == 200)
            // B's file is merely behind: B takes the newest version and rewrites its file.
            try b.start()
            #expect(b.kura.rules.current.source == fromAPI)
            #expect(try String(contentsOfFile: b.dataDirectory + "/kura.rules", encoding: .utf8) == fromAPI)
            b.stop()
            // Edited while B was down: the edit is meant, so B publishes it when it starts, and A switches.
            let edited = RuleSetSources.ownerOnly + "// edited while b was down\n"
            try b.writeRulesFile(edited)
            try b.start()
            #expect(b.kura.rules.current.source == edited)
            #expect(waitUntil(timeout: 10) { a.kura.rules.current.source == edited })
            let versions = try TestThread {
                try PostgresConnection(url: url).query("SELECT count(*) FROM rules").int(0, 0)
            }.join()
            #expect(versions == 3)
        }
    }

    // MARK: Helpers

    static func activeKid(_ node: TestKura) throws -> String? {
        let keys = try node.request("GET", "/api/auth/keys", auth: .none).json["keys"] as? [[String: Any]]
        return keys?.first?["kid"] as? String
    }

    static func kid(ofToken token: String) -> String? {
        guard let header = token.split(separator: ".").first else { return nil }
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}

/// Rules texts for the cluster tests.
enum RuleSetSources {
    /// Users read and write their own documents under `users/{uid}`.
    static let ownerOnly = """
        rules_version = '1';
        match /users/{uid}/{rest=**} {
          allow read, write: if request.auth != null && request.auth.uid == uid;
        }

        """
}

/// A node alone on its engine (SQLite) keeps its single-node wiring: a local channel, no change-log follower, the
/// rules and the admin key in its data directory.
@Suite struct ClusterLocalTests {
    @Test("a SQLite node tells nobody and follows no log")
    func sqliteNodeIsAlone() throws {
        try withTestKura { server in
            #expect(server.kura.cluster.channel is LocalClusterChannel)
            #expect(server.kura.cluster.channel.shared == nil)
            #expect(server.kura.cluster.follower == nil)
            #expect(server.kura.rules.sharedVersion == 0)
            #expect(!FileManager.default.fileExists(atPath: server.dataDirectory + "/kura.rules.version"))
        }
    }
}
