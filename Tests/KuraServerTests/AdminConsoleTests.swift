import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// The admin endpoints the console at `/_/` uses beyond the older ones, and the console's files.
@Suite struct AdminConsoleTests {
    /// web/console/ in this checkout.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../web/console").standardizedFileURL.path

    @Test("every file in web/console is embedded and served at /_/, index.html at /_/ itself, guarded against framing")
    func consoleFiles() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { !$0.hasPrefix(".") }
        #expect(names.contains("index.html") && names.contains("console.js"))
        try withTestKura { server in
            for name in names {
                let expected = try Array(Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name)))
                let response = try server.request("GET", "/_/" + name, auth: .none)
                // A file missing here needs its block in Sources/CKuraWebSDK/kura_console.c.
                #expect(response.status == 200, "web/console/\(name) is not embedded")
                let same = response.bodyBytes == expected  // (a byte-array comparison would print both arrays)
                #expect(same, "web/console/\(name) is served with other bytes than the checkout's")
            }
            let page = try server.request("GET", "/_/", auth: .none)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.header("Referrer-Policy") == "no-referrer")
            let bare = try server.request("GET", "/_", auth: .none)
            #expect(bare.status == 308 && bare.header("Location") == "/_/")
            expectError(try server.request("GET", "/_/nope.js", auth: .none), 404, .notFound)
        }
    }

    @Test("a hosting root cannot shadow the console: /_/ is Kura's whatever the root holds")
    func hostingRootDoesNotShadow() throws {
        try withHostingKura { server, fixture in
            try FileManager.default.createDirectory(atPath: fixture.root + "/_", withIntermediateDirectories: true)
            try fixture.write("_/index.html", "not the console")
            try fixture.write("_/other.js", "not the console")
            let page = try server.request("GET", "/_/", auth: .none)
            #expect(page.status == 200 && page.body.contains("console.js"))
            expectError(try server.request("GET", "/_/other.js", auth: .none), 404, .notFound)
        }
    }

    @Test("collections lists the IDs under the root or a document, once each, page by page")
    func collections() throws {
        try withTestKura { server in
            func ids(_ target: String) throws -> (ids: [String], next: String?) {
                let response = try server.request("GET", target)
                try #require(response.status == 200, "\(response)")
                return (response.json["collectionIds"] as? [String] ?? [], response.json["nextPageToken"] as? String)
            }
            #expect(try ids("/api/admin/collections").ids == [])
            try server.put("users/u1", ["name": "a"])
            try server.put("users/u2", ["name": "b"])
            try server.put("users/u1/todos/t1", ["title": "x"])
            try server.put("users/u1/notes/n1", ["text": "y"])
            try server.put("users/u2/todos/t1", ["title": "z"])
            // Only a subcollection holds documents: the parent collection is listed anyway, as in Firestore.
            try server.put("groups/g1/members/m1", ["role": "owner"])
            try server.put("users-archive/u9", ["name": "c"])
            #expect(try Set(ids("/api/admin/collections").ids) == ["users", "groups", "users-archive"])
            #expect(try ids("/api/admin/collections?parent=users/u1").ids.sorted() == ["notes", "todos"])
            #expect(try ids("/api/admin/collections?parent=users/u2").ids == ["todos"])
            #expect(try ids("/api/admin/collections?parent=users/u3").ids == [])
            #expect(try ids("/api/admin/collections?parent=groups/g1").ids == ["members"])

            var seen: [String] = []
            var target = "/api/admin/collections?pageSize=1"
            for _ in 0..<5 {
                let page = try ids(target)
                #expect(page.ids.count <= 1)
                seen += page.ids
                guard let next = page.next else { break }
                target = "/api/admin/collections?pageSize=1&pageToken=\(next)"
            }
            #expect(seen.sorted() == ["groups", "users", "users-archive"])
            // `users-archive` sorts between `users` and `users/u1/todos`: a page that ends there does not list
            // `users` again for its subcollections.
            try server.put("users-archive/u9/old/o1", ["x": 1])
            try server.put("users.bak/u1", ["x": 1])
            for size in 1...3 {
                var all: [String] = []
                var next: String? = nil
                var pages = 0
                repeat {
                    let page = try ids(
                        "/api/admin/collections?pageSize=\(size)" + (next.map { "&pageToken=\($0)" } ?? ""))
                    all += page.ids
                    next = page.next
                    pages += 1
                } while next != nil && pages < 10
                #expect(all.sorted() == ["groups", "users", "users-archive", "users.bak"], "pageSize \(size)")
            }

            // A collection whose documents were all deleted is not listed.
            #expect(try server.request("DELETE", "/api/docs/users/u1/notes/n1").status == 204)
            #expect(try ids("/api/admin/collections?parent=users/u1").ids == ["todos"])

            expectError(try server.request("GET", "/api/admin/collections?parent=users"), 400, .invalidPath)
            expectError(try server.request("GET", "/api/admin/collections?pageSize=0"), 400, .invalidArgument)
            expectError(try server.request("GET", "/api/admin/collections?pageToken=%25%25"), 400, .invalidArgument)
            expectError(try server.request("GET", "/api/admin/collections", auth: .none), 401, .unauthenticated)
        }
    }

    @Test("status reports the version, engine, connections, listeners and change-log position")
    func status() throws {
        try withTestKura { server in
            try server.put("a/b", ["n": 1])
            let response = try server.request("GET", "/api/admin/status")
            try #require(response.status == 200, "\(response)")
            let json = response.json
            #expect(json["version"] as? String == KuraNode.version)
            #expect(json["engine"] as? String == "sqlite")
            #expect((json["uptimeSeconds"] as? Int).map { $0 >= 0 } == true)
            #expect((json["connections"] as? Int).map { $0 >= 1 } == true)
            #expect(json["listenStreams"] as? Int == 0)
            #expect((json["changeLogPosition"] as? Int).map { $0 >= 1 } == true)
            #expect((json["dataBytes"] as? Int).map { $0 > 0 } == true)
            #expect(json["lastBackup"] is NSNull)
            expectError(try server.request("GET", "/api/admin/status", auth: .none), 401, .unauthenticated)

            // What `kura backup` notes in the data directory shows in the status.
            try #"{"time":"2026-12-01T03:00:00.000000Z","file":"/backups/kura.db"}"#.write(
                toFile: server.kura.configuration.dataDirectory + "/backup.last", atomically: true, encoding: .utf8)
            let after = try server.request("GET", "/api/admin/status").json["lastBackup"] as? [String: Any]
            #expect(after?["file"] as? String == "/backups/kura.db")
            #expect(after?["time"] as? String == "2026-12-01T03:00:00.000000Z")
        }
    }

    @Test("status: dataBytes on every engine, nodes null on SQLite (a single node)")
    func statusSingleNode() throws {
        try withTestKura { server in
            let json = try server.request("GET", "/api/admin/status").json
            #expect(json["nodes"] is NSNull)
            #expect((json["dataBytes"] as? Int).map { $0 > 0 } == true)
        }
    }

    @Test("traffic: the requests made show in the intervals and the summary, with percentiles; admins only")
    func traffic() throws {
        try withAuthKura { server in
            for index in 0..<20 { try server.put("t/d\(index)", ["n": index]) }
            for _ in 0..<5 { _ = try server.request("GET", "/api/docs/t/missing") }
            let response = try server.request("GET", "/api/admin/traffic")
            try #require(response.status == 200, "\(response)")
            let json = response.json
            #expect(json["metricsEnabled"] as? Bool == true)
            #expect(json["intervalSeconds"] as? Int == 10)
            #expect(json["windowSeconds"] as? Int == 900)
            let intervals = try #require(json["intervals"] as? [[String: Any]])
            #expect(!intervals.isEmpty && intervals.count <= 90)
            let counted = intervals.reduce(0) { $0 + ($1["requests"] as? Int ?? 0) }
            // The 25 requests above, and whatever the harness made before them (sign-ins, the admin key's checks).
            #expect(counted >= 25)
            let starts = intervals.compactMap { $0["start"] as? String }
            #expect(starts.count == intervals.count && starts == starts.sorted())
            for interval in intervals {
                let requests = interval["requests"] as? Int ?? -1
                #expect(requests >= 0 && (interval["errors"] as? Int).map { $0 >= 0 } == true)
                if requests == 0 {
                    #expect(interval["p50Ms"] is NSNull && interval["p99Ms"] is NSNull)
                } else {
                    let p50 = try #require(interval["p50Ms"] as? Double)
                    let p95 = try #require(interval["p95Ms"] as? Double)
                    let p99 = try #require(interval["p99Ms"] as? Double)
                    #expect(p50 > 0 && p50 <= p95 && p95 <= p99 && p99 <= 10_000)
                }
            }
            let summary = try #require(json["summary"] as? [String: Any])
            #expect(summary["requests"] as? Int == counted)
            #expect((summary["requestsPerSecond"] as? Double).map { $0 > 0 } == true)
            #expect((summary["p99Ms"] as? Double).map { $0 > 0 } == true)
            #expect(summary["errors"] as? Int == 0)

            // The next answer counts this one's request too: the numbers only grow within the window.
            let again = try server.request("GET", "/api/admin/traffic").json["summary"] as? [String: Any]
            #expect((again?["requests"] as? Int).map { $0 > counted } == true)

            expectError(try server.request("GET", "/api/admin/traffic", auth: .none), 401, .unauthenticated)
            let user = try server.signUp("bob@example.com")
            expectError(try server.request("GET", "/api/admin/traffic", auth: user.bearer), 403, .permissionDenied)
            let admin = try server.signUpAdmin("root@example.com")
            #expect(try server.request("GET", "/api/admin/traffic", auth: admin.bearer).status == 200)
        }
    }

    @Test("traffic with metrics.enabled=false says so and lists nothing; metrics.historySeconds sets the window")
    func trafficSettings() throws {
        try withTestKura(configure: { try $0.set("metrics.enabled", "false") }) { server in
            try server.put("a/b", ["n": 1])
            let response = try server.request("GET", "/api/admin/traffic")
            try #require(response.status == 200, "\(response)")
            #expect(response.json["metricsEnabled"] as? Bool == false)
            #expect((response.json["intervals"] as? [Any])?.isEmpty == true)
            #expect(response.json["summary"] is NSNull)
        }
        try withTestKura(configure: { try $0.set("metrics.historySeconds", "120") }) { server in
            let json = try server.request("GET", "/api/admin/traffic").json
            #expect(json["windowSeconds"] as? Int == 120)
            #expect(((json["intervals"] as? [Any])?.count).map { $0 >= 1 && $0 <= 12 } == true)
        }
        var configuration = KuraConfiguration()
        for bad in ["59", "86401", "ten"] {
            #expect(throws: ConfigurationError.self) { try configuration.set("metrics.historySeconds", bad) }
        }
    }

    @Test("an administrator creates an account, finds it by address and revokes its sessions")
    func createFindRevoke() throws {
        try withAuthKura { kura in
            let created = try kura.request(
                "POST", "/api/admin/users", json: ["email": "Zoe@Example.com", "password": "secret-pw"])
            try #require(created.status == 201, "\(created)")
            let user = try #require(created.json["user"] as? [String: Any])
            #expect(user["emailVerified"] as? Bool == false && user["disabled"] as? Bool == false)
            #expect(user["lastSignInTime"] is NSNull)
            let uid = try #require(user["uid"] as? String)
            expectError(
                try kura.request(
                    "POST", "/api/admin/users", json: ["email": "zoe@example.com", "password": "secret-pw"]),
                400, .emailExists)
            expectError(
                try kura.request("POST", "/api/admin/users", json: ["password": "secret-pw"]), 400, .invalidEmail)
            expectError(
                try kura.request("POST", "/api/admin/users", json: ["email": "x@example.com"]), 400, .missingPassword)
            expectError(
                try kura.request(
                    "POST", "/api/admin/users", json: ["email": "x@example.com", "password": "secret-pw", "x": 1]),
                400, .invalidArgument)

            for address in ["zed@example.com", "zoey@example.com", "amy@example.com"] {
                #expect(
                    try kura.request("POST", "/api/admin/users", json: ["email": address, "password": "secret-pw"])
                        .status == 201)
            }
            func emails(_ target: String) throws -> (emails: [String], next: String?) {
                let response = try kura.request("GET", target)
                let users = response.json["users"] as? [[String: Any]] ?? []
                return (users.compactMap { $0["email"] as? String }, response.json["nextPageToken"] as? String)
            }
            let first = try emails("/api/admin/users?emailPrefix=Zo&pageSize=1")
            #expect(first.emails == ["Zoe@example.com"])
            let second = try emails("/api/admin/users?emailPrefix=Zo&pageSize=1&pageToken=\(try #require(first.next))")
            #expect(second.emails == ["zoey@example.com"] && second.next == nil)
            #expect(
                try emails("/api/admin/users?emailPrefix=z").emails == [
                    "zed@example.com", "Zoe@example.com", "zoey@example.com",
                ])
            #expect(try emails("/api/admin/users?emailPrefix=q").emails.isEmpty)
            expectError(
                try kura.request("GET", "/api/admin/users?emailPrefix=a&pageToken=\(try #require(first.next))"), 400,
                .invalidArgument)
            let found = try kura.request("GET", "/api/admin/users?email=zoe%40example.com")
            #expect((found.json["users"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } == [uid])
            let none = try kura.request("GET", "/api/admin/users?email=nobody%40example.com")
            #expect((none.json["users"] as? [[String: Any]])?.isEmpty == true)
            expectError(try kura.request("GET", "/api/admin/users?email=not-an-address"), 400, .invalidEmail)

            let session = try Session(try kura.signInResponse("zoe@example.com", "secret-pw"))
            #expect(try kura.request("GET", "/api/auth/me", as: session).status == 200)
            let signedIn = try kura.request("GET", "/api/admin/users/\(uid)").json["user"] as? [String: Any]
            #expect(signedIn?["lastSignInTime"] is String)
            let revoked = try kura.request("POST", "/api/admin/users/\(uid)/revoke")
            #expect(revoked.status == 200, "\(revoked)")
            expectError(try kura.request("GET", "/api/auth/me", as: session), 401, .invalidIDToken)
            expectError(try kura.request("POST", "/api/admin/users/nobody/revoke"), 404, .userNotFound)
            // A user without the admin claim may do none of it.
            let other = try kura.signUp("other@example.com")
            expectError(
                try kura.request(
                    "POST", "/api/admin/users", json: ["email": "y@example.com", "password": "secret-pw"], as: other),
                403, .permissionDenied)
        }
    }

    @Test("a stored mail is queued again as a new outbox entry")
    func resendMail() throws {
        try withAuthKura { kura in
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "nobody@example.com"]).status
                    == 200)
            _ = try kura.signUp("amy@example.com")
            var mails: [[String: Any]] = []
            for _ in 0..<100 {
                mails = try kura.request("GET", "/api/admin/outbox").json["mails"] as? [[String: Any]] ?? []
                if !mails.isEmpty { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let first = try #require(mails.first)
            let id = try #require(first["id"] as? String)
            let resent = try kura.request("POST", "/api/admin/outbox/\(id)/resend")
            try #require(resent.status == 201, "\(resent)")
            let copyID = try #require(resent.json["id"] as? String)
            #expect(copyID != id)
            let after = try kura.request("GET", "/api/admin/outbox").json["mails"] as? [[String: Any]] ?? []
            let copy = try #require(after.first { $0["id"] as? String == copyID })
            #expect(copy["to"] as? String == first["to"] as? String)
            #expect(copy["subject"] as? String == first["subject"] as? String)
            #expect(copy["actionLink"] as? String == first["actionLink"] as? String)
            #expect(copy["status"] as? String == "held" && copy["attempts"] as? Int == 0)
            expectError(try kura.request("POST", "/api/admin/outbox/nope/resend"), 404, .notFound)
            expectError(try kura.request("POST", "/api/admin/outbox/\(id)/resend", auth: .none), 401, .unauthenticated)
        }
    }

    @Test("a rules test table runs against a draft or the rules in force, and a draft that does not compile says where")
    func rulesTest() throws {
        try withTestKura { server in
            let table: [String: Any] = [
                "cases": [
                    [
                        "name": "anyone reads", "auth": NSNull(), "method": "get", "path": "/posts/p1",
                        "expect": "allow",
                    ],
                    [
                        "name": "alice writes", "auth": ["uid": "alice"], "method": "create", "path": "/posts/p1",
                        "data": ["title": "t"], "expect": "allow",
                    ],
                ]
            ]
            let draft = """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /posts/{id} {
                      allow read: if true;
                    }
                  }
                }
                """
            let response = try server.request("POST", "/api/admin/rules/test", json: ["source": draft, "table": table])
            try #require(response.status == 200, "\(response)")
            #expect(response.json["passed"] as? Int == 1 && response.json["failed"] as? Int == 1)
            let results = try #require(response.json["results"] as? [[String: Any]])
            #expect(results.map { $0["passed"] as? Bool } == [true, false])
            #expect(results[1]["decision"] as? String == "deny" && results[1]["reason"] is String)
            // Nothing was published.
            let live = try server.request("GET", "/api/admin/rules")
            #expect(live.json["source"] as? String != draft)

            let broken = draft.replacingOccurrences(of: "allow read: if true;", with: "allow read: if true")
            let refused = try server.request("POST", "/api/admin/rules/test", json: ["source": broken, "table": []])
            expectError(refused, 400, .invalidRules)
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasPrefix("kura.rules:6:"), "\(message)")

            expectError(
                try server.request("POST", "/api/admin/rules/test", json: ["table": ["cases": [["name": "x"]]]]), 400,
                .invalidArgument)
            expectError(
                try server.request("POST", "/api/admin/rules/test", json: ["source": draft]), 400, .invalidArgument)
            expectError(
                try server.request("POST", "/api/admin/rules/test", json: ["table": []], auth: .none), 401,
                .unauthenticated)
        }
    }

    @Test("rules published through the API are kept as versions, newest first, with the rules before the first one")
    func rulesVersions() throws {
        try withTestKura(configure: { $0.rulesKeepVersions = 3 }) { server in
            func versions() throws -> [[String: Any]] {
                let response = try server.request("GET", "/api/admin/rules/versions")
                try #require(response.status == 200, "\(response)")
                return response.json["versions"] as? [[String: Any]] ?? []
            }
            #expect(try versions().isEmpty)
            let original = try #require(try server.request("GET", "/api/admin/rules").json["source"] as? String)
            let sources = (1...3).map { "rules_version = '2';\n// version \($0)\n" }
            for source in sources {
                #expect(try server.request("POST", "/api/admin/rules", json: ["source": source]).status == 200)
            }
            let kept = try versions()
            // Three kept: the oldest (the original rules, then version 1) are gone.
            #expect(kept.count == 3)
            var texts: [String] = []
            for version in kept {
                let id = try #require(version["id"] as? String)
                #expect(version["publishTime"] is String && (version["bytes"] as? Int ?? 0) > 0)
                let response = try server.request("GET", "/api/admin/rules/versions/\(id)")
                texts.append(response.json["source"] as? String ?? "")
            }
            #expect(texts == [sources[2], sources[1], sources[0]])

            // A refused source is not a version.
            expectError(
                try server.request("POST", "/api/admin/rules", json: ["source": "match {"]), 400, .invalidRules)
            #expect(try versions().count == 3)
            expectError(try server.request("GET", "/api/admin/rules/versions/123"), 404, .notFound)
            expectError(try server.request("GET", "/api/admin/rules/versions/x"), 404, .notFound)
            _ = original
        }
        try withTestKura { server in
            let original = try #require(try server.request("GET", "/api/admin/rules").json["source"] as? String)
            #expect(
                try server.request("POST", "/api/admin/rules", json: ["source": "rules_version = '2';\n"]).status == 200
            )
            let kept = try server.request("GET", "/api/admin/rules/versions").json["versions"] as? [[String: Any]] ?? []
            #expect(kept.count == 2)
            let oldest = try #require(kept.last?["id"] as? String)
            // The rules before the first publication can be put back.
            #expect(
                try server.request("GET", "/api/admin/rules/versions/\(oldest)").json["source"] as? String == original)
        }
    }
}
