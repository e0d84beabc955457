import Foundation
import KuraCore
import KuraPostgres
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
            let (ann, _) = try TransferRoundTripTests.seed(source)
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

    @Test("storage failing half-way: the error says exactly what was stored, and that is what the target holds")
    func partialImport() throws {
        let scratch = try TemporaryDirectory("transfer-pg")
        defer { scratch.remove() }
        let url = try TestPostgres.freshDatabase()
        let quiet = TransferRoundTripTests.quiet
        let node = scratch.file("node")
        func file(_ name: String, documents: Int) throws -> String {
            var lines = [
                #"{"kind":"header","format":"kura-export","formatVersion":1,"kura":"0.1.0","engine":"sqlite","#
                    + #""time":"2026-01-01T00:00:00Z","documents":\#(documents),"accounts":0,"indexes":0,"rules":0}"#
            ]
            for i in 0..<documents {
                lines.append(
                    #"{"kind":"document","path":"bulk/d\#(String(format: "%04d", i))","createTime":"#
                        + #""2026-01-01T00:00:00Z","updateTime":"2026-01-01T00:00:00Z","version":1,"data":{"n":\#(i)}}"#
                )
            }
            let path = scratch.file(name)
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        // An empty import creates the schema; then the database refuses one document, as a full disk would.
        try KuraNode.importFile(
            configuration: Self.postgres(node, url: url), from: try file("empty.ndjson", documents: 0), logger: quiet,
            interactive: false)
        try PostgresConnection(url: url).execute(
            """
            CREATE FUNCTION refuse_d0700() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.id = convert_to('d0700', 'UTF8') THEN RAISE EXCEPTION 'no space left (test)'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER refuse_d0700 BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION refuse_d0700();
            """)
        let big = try file("big.ndjson", documents: 1200)
        #expect {
            try KuraNode.importFile(
                configuration: Self.postgres(node, url: url), from: big, logger: quiet, interactive: false)
        } throws: { error in
            guard let error = error as? TransferError else { return false }
            let said = error.message.contains("after storing 500 documents, 0 accounts") && error.exitCode == 1
            if !said { Issue.record("\(error.message)") }
            return said
        }
        let summary = try KuraNode.export(
            configuration: Self.postgres(node, url: url), to: scratch.file("after.ndjson"), logger: quiet,
            interactive: false)
        #expect(summary.documents == 500)
    }
}
