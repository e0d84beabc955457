import Foundation
import KuraCore
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// The move issue 17 asks for: SQLite → PostgreSQL → SQLite through `kura export` / `kura import`, with the same
/// records at every step and the app served from PostgreSQL in between.
@Suite(TestPostgres.available) struct TransferPostgresTests {
    static func postgres(_ dataDirectory: String, url: String) -> KuraConfiguration {
        var configuration = TransferRoundTripTests.configuration(dataDirectory)
        configuration.store.engine = "postgres"
        configuration.store.postgres.url = url
        configuration.store.postgres.poolSize = 4
        return configuration
    }

    /// The lines without the header's `time` and `engine`.
    static func records(_ file: String) throws -> [String] {
        var lines = try TransferRoundTripTests.linesWithoutTime(file)
        lines[0] = lines[0].replacing(/"engine":"[^"]*",/, with: "")
        return lines
    }

    @Test("SQLite → PostgreSQL → SQLite: the same records each way; the user signs in and reads on PostgreSQL")
    func sqliteToPostgresAndBack() throws {
        let scratch = try TemporaryDirectory("transfer-pg")
        defer { scratch.remove() }
        let url = try TestPostgres.freshDatabase()
        let quiet = TransferRoundTripTests.quiet
        try withAuthKura { source in
            let ann = try source.signUp("ann@example.com", "ann-password")
            let body = #"{"data":{"f":1.0,"i":9007199254740993,"s":"か\#u{3099}","nested":{"a":[1,{"b":null}]}}}"#
            for path in ["users/\(ann.uid)/notes/n1", "notes/a", "notes/a/replies/r1", "notes-x/a"] {
                #expect(try source.request("PUT", "/api/docs/" + path, body: Array(body.utf8)).status == 200)
            }
            try source.put("notes/a", ["n": 2])
            for start in stride(from: 0, to: 1203, by: 500) {
                try source.commit(
                    (start..<min(start + 500, 1203)).map {
                        ["op": "set", "path": "bulk/d\($0)", "data": ["n": $0]] as [String: Any]
                    })
            }
            let index = try source.request(
                "POST", "/api/admin/indexes",
                json: [
                    "collectionGroup": "bulk", "queryScope": "COLLECTION",
                    "fields": [["fieldPath": "n", "order": "DESCENDING"], ["fieldPath": "m", "order": "ASCENDING"]],
                ])
            #expect(index.status == 200 || index.status == 201, "\(index)")
            let fromSQLite = scratch.file("sqlite.ndjson")
            let exported = try KuraNode.export(
                configuration: TransferRoundTripTests.configuration(source.dataDirectory), to: fromSQLite,
                logger: quiet, interactive: false)

            let node = scratch.file("pg-node")
            #expect(
                try KuraNode.importFile(
                    configuration: Self.postgres(node, url: url), from: fromSQLite, batchSize: 250, logger: quiet,
                    interactive: false) == exported)
            let fromPostgres = scratch.file("postgres.ndjson")
            try KuraNode.export(
                configuration: Self.postgres(node, url: url), to: fromPostgres, logger: quiet, interactive: false)
            #expect(try String(contentsOfFile: fromPostgres, encoding: .utf8).hasPrefix(#"{"kind":"header""#))
            #expect(try Self.records(fromSQLite) == Self.records(fromPostgres))
            // The PostgreSQL database is not empty any more: a second import is refused.
            #expect {
                try KuraNode.importFile(
                    configuration: Self.postgres(scratch.file("pg-node-2"), url: url), from: fromSQLite,
                    logger: quiet, interactive: false)
            } throws: { ($0 as? TransferError)?.message.contains("already holds 1207 documents") == true }

            // Served from PostgreSQL: same password, same uid, same document through the rules.
            let before = try source.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: ann)
            try withAuthKura(configure: {
                $0.dataDirectory = node
                $0.store.engine = "postgres"
                $0.store.postgres.url = url
            }) { served in
                let again = try served.signIn("ann@example.com", "ann-password")
                #expect(again.uid == ann.uid)
                let read = try served.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: again)
                #expect(read.status == 200)
                #expect(read.body == before.body)
                #expect(try served.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: nil).status == 403)
            }

            // And back to a new SQLite data directory.
            let back = scratch.file("sqlite-again")
            try KuraNode.importFile(
                configuration: TransferRoundTripTests.configuration(back), from: fromPostgres, logger: quiet,
                interactive: false)
            let again = scratch.file("again.ndjson")
            try KuraNode.export(
                configuration: TransferRoundTripTests.configuration(back), to: again, logger: quiet, interactive: false)
            #expect(
                try TransferRoundTripTests.linesWithoutTime(fromSQLite)
                    == TransferRoundTripTests.linesWithoutTime(again))
        }
    }
}
