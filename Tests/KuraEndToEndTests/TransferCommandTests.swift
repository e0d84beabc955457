import Foundation
import KuraTestSupport
import Testing

/// `kura export` and `kura import` as a user runs them: from a live server's data directory to a new one, which
/// then serves the same users and documents.
@Suite struct TransferCommandTests {
    /// Runs `kura ARGUMENTS`; returns the exit status, standard output and standard error apart.
    static func kura(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try runToEndApart(KuraBinary.url, arguments)
    }

    @Test("kura export - while serving, kura import into a new data directory, and the user signs in there")
    func exportImportServe() throws {
        let root = try TemporaryDirectory("transfer-cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = try ServerProcess(dataDirectory: root + "/source", logFile: root + "/source.log")
        defer { source.stop() }
        let signUp = try HTTPClient.send(
            port: source.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "ann@example.com", "password": "ann-password"]))
        #expect(signUp.status == 201)
        let uid = try #require((signUp.json["user"] as? [String: Any])?["uid"] as? String)
        let token = try #require(signUp.json["idToken"] as? String)
        for id in 0..<30 {
            let put = try HTTPClient.send(
                port: source.port, "PUT", "/api/docs/users/\(uid)/notes/n\(id)",
                headers: [("Authorization", "Bearer \(token)")], body: JSON.encode(["data": ["n": id]]))
            #expect(put.status == 200)
        }

        // To standard output: the file is what stdout carries, the progress and log go to stderr.
        let exported = try Self.kura(["export", "-", "--data", root + "/source"])
        #expect(exported.status == 0, "\(exported.errors)")
        let lines = exported.output.split(separator: "\n")
        #expect(lines.count == 1 + 1 + 1 + 30)  // header, rules, the account, the documents
        #expect(lines.first?.contains(#""format":"kura-export""#) == true)
        #expect(exported.errors.contains("exported 30 documents, 1 accounts"), "\(exported.errors)")
        let file = root + "/app.ndjson"
        try exported.output.write(toFile: file, atomically: true, encoding: .utf8)

        // A bad line: exit 2, the line named, nothing imported.
        var broken = lines.map(String.init)
        broken[5] = #"{"kind":"document","path":"notes"}"#
        try (broken.joined(separator: "\n") + "\n").write(
            toFile: root + "/broken.ndjson", atomically: true, encoding: .utf8)
        let refused = try Self.kura(["import", root + "/broken.ndjson", "--data", root + "/target"])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("broken.ndjson:6: "), "\(refused.errors)")

        let imported = try Self.kura(["import", file, "--data", root + "/target", "--batch", "7"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 30 documents, 1 accounts"), "\(imported.output)")
        // A second import into the same (now non-empty) target is refused.
        let again = try Self.kura(["import", file, "--data", root + "/target"])
        #expect(again.status == 2)
        #expect(again.errors.contains("already holds 30 documents and 1 accounts"), "\(again.errors)")
        #expect(try Self.kura(["import", file, "--data", root + "/target", "--batch", "501"]).status == 2)

        let target = try ServerProcess(dataDirectory: root + "/target", logFile: root + "/target.log")
        defer { target.stop() }
        let signIn = try HTTPClient.send(
            port: target.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ann@example.com", "password": "ann-password"]))
        #expect(signIn.status == 200)
        #expect((signIn.json["user"] as? [String: Any])?["uid"] as? String == uid)
        let newToken = try #require(signIn.json["idToken"] as? String)
        let before = try HTTPClient.send(
            port: source.port, "GET", "/api/docs/users/\(uid)/notes/n7", headers: [("Authorization", "Bearer \(token)")]
        )
        let after = try HTTPClient.send(
            port: target.port, "GET", "/api/docs/users/\(uid)/notes/n7",
            headers: [("Authorization", "Bearer \(newToken)")])
        #expect(after.status == 200)
        #expect(after.body == before.body)
        #expect(try Self.kura(["import", "-", "--data", root + "/other"]).errors.contains("not standard input"))
        // An import needs the data directory to itself.
        let busy = try Self.kura(["import", file, "--data", root + "/target", "--merge"])
        #expect(busy.status != 0)
        #expect(busy.errors.contains("in use by process"), "\(busy.errors)")
    }
}

@Suite(TestPostgres.available) struct TransferCommandPostgresTests {
    @Test("kura import and kura export with --set store.engine=postgres: SQLite → PostgreSQL → SQLite, same records")
    func throughPostgres() throws {
        let root = try TemporaryDirectory("transfer-cli-pg").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let created = try TransferCommandTests.kura([
            "admin", "create-user", "--email", "ops@example.com", "--password", "ops-password", "--data",
            root + "/source",
        ])
        #expect(created.status == 0, "\(created.errors)")
        try "rules_version = '1';\nmatch /boards/{id} { allow read: if true; }\n".write(
            toFile: root + "/source/kura.rules", atomically: true, encoding: .utf8)
        let file = root + "/app.ndjson"
        #expect(try TransferCommandTests.kura(["export", file, "--data", root + "/source"]).status == 0)
        let postgres = ["--set", "store.engine=postgres", "--set", "store.url=\(try TestPostgres.freshDatabase())"]
        let imported = try TransferCommandTests.kura(["import", file, "--data", root + "/node"] + postgres)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 0 documents, 1 accounts"), "\(imported.output)")
        let back = root + "/back.ndjson"
        let exported = try TransferCommandTests.kura(["export", back, "--data", root + "/node"] + postgres)
        #expect(exported.status == 0, "\(exported.errors)")
        func records(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(String.init)
        }
        #expect(try records(file).count == 2)  // the rules and the account
        #expect(try records(file) == records(back))
        #expect(try String(contentsOfFile: back, encoding: .utf8).contains(#""engine":"postgres""#))
    }
}
