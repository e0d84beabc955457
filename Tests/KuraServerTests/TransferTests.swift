import Foundation
import KuraCore
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// `kura export` / `kura import` in this process: the round trip, the refusal of a non-empty target, and that the
/// imported data serves (sign-in with the same password, reads through the rules).
@Suite struct TransferRoundTripTests {
    /// The settings of a data directory the transfer commands work on.
    static func configuration(_ dataDirectory: String) -> KuraConfiguration {
        var configuration = KuraConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.logLevel = .error
        return configuration
    }

    static let quiet = Logger(level: .error)

    /// The file's lines, the header's `time` taken out (the only member that differs between two exports).
    static func linesWithoutTime(_ file: String) throws -> [String] {
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = lines[0].replacing(/"time":"[^"]*",/, with: "")
        return lines
    }

    /// The source data of the transfer tests: two accounts (Bob's with claims), documents whose JSON must come back
    /// exactly, a document at version 2, 1,203 documents in one collection (more than one page and one batch) and
    /// a composite index. With the default rules: 1207 documents, 2 accounts, 1 index, 1 rules file.
    static func seed(_ source: TestKura) throws -> (ann: Session, bob: Session) {
        let ann = try source.signUp("ann@example.com", "ann-password", displayName: "Ann")
        let bob = try source.signUp("Bob@Example.com", "bob-password")
        _ = try source.adminUpdate(bob.uid, ["customClaims": ["role": "editor"], "disabled": false])
        // Values whose JSON must survive exactly: doubles that look like integers, big integers, text that
        // canonical equivalence would merge, nesting, empty containers.
        let body =
            #"{"data":{"f":1.0,"g":-0.0,"h":1.5e+300,"i":9007199254740993,"s":"か\#u{3099}","t":"が","#
            + #""nested":{"a":[1,{"b":null}],"e":{}},"list":[],"ok":true}}"#
        for path in ["users/\(ann.uid)/notes/n1", "notes/a", "notes/a/replies/r1", "notes-x/a"] {
            let response = try source.request("PUT", "/api/docs/" + path, body: Array(body.utf8))
            #expect(response.status == 200, "\(response)")
        }
        try source.put("notes/a", ["n": 2])  // version 2, createTime before updateTime
        // More than one page and one batch: 1,203 documents in one collection.
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
        return (ann, bob)
    }

    @Test("SQLite → export → import into a new data directory → export gives the same records; the user signs in again")
    func roundTrip() throws {
        let scratch = try TemporaryDirectory("transfer")
        defer { scratch.remove() }
        try withAuthKura { source in
            let (ann, bob) = try Self.seed(source)

            // Exported while the source serves.
            let first = scratch.file("first.ndjson")
            let exported = try KuraNode.export(
                configuration: Self.configuration(source.dataDirectory), to: first, logger: Self.quiet,
                interactive: false)
            #expect(exported == TransferSummary(documents: 1207, accounts: 2, indexes: 1, rules: 1))
            let mode = try FileManager.default.attributesOfItem(atPath: first)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            let target = scratch.file("target")
            let imported = try KuraNode.importFile(
                configuration: Self.configuration(target), from: first, batchSize: 97, logger: Self.quiet,
                interactive: false)
            #expect(imported == exported)
            let second = scratch.file("second.ndjson")
            try KuraNode.export(
                configuration: Self.configuration(target), to: second, logger: Self.quiet, interactive: false)
            #expect(try Self.linesWithoutTime(first) == Self.linesWithoutTime(second))

            // A second import into the now non-empty target is refused, and changes nothing.
            #expect {
                try KuraNode.importFile(
                    configuration: Self.configuration(target), from: first, logger: Self.quiet, interactive: false)
            } throws: { error in
                (error as? TransferError)?.message.contains("already holds 1207 documents and 2 accounts") == true
            }
            // With --merge it goes through, replacing every record by itself.
            let merged = try KuraNode.importFile(
                configuration: Self.configuration(target), from: first, merge: true, logger: Self.quiet,
                interactive: false)
            #expect(merged == exported)
            let third = scratch.file("third.ndjson")
            try KuraNode.export(
                configuration: Self.configuration(target), to: third, logger: Self.quiet, interactive: false)
            #expect(try Self.linesWithoutTime(first) == Self.linesWithoutTime(third))

            // The imported data directory serves: same password, same uid, same documents through the rules.
            let before = try source.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: ann)
            let notesBefore = try source.request("GET", "/api/docs/notes/a")
            try withAuthKura(configure: { $0.dataDirectory = target }) { imported in
                let again = try imported.signIn("ann@example.com", "ann-password")
                #expect(again.uid == ann.uid)
                #expect(try imported.signInResponse("ann@example.com", "wrong-password").status != 200)
                let read = try imported.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: again)
                #expect(read.status == 200)
                #expect(read.body == before.body)
                #expect(try imported.request("GET", "/api/docs/notes/a").body == notesBefore.body)
                // The rules came along: Bob may not read Ann's notes, nor may anyone signed out.
                let bobAgain = try imported.signIn("bob@example.com", "bob-password")
                #expect(bobAgain.uid == bob.uid)
                #expect(try imported.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: bobAgain).status == 403)
                #expect(try imported.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: nil).status == 403)
                // The old session did not move: its refresh token is unknown here.
                #expect(try imported.refresh(ann.refreshToken).status != 200)
                // The index definition came along and was built.
                let indexes = try imported.request("GET", "/api/admin/indexes")
                #expect(indexes.body.contains("\"READY\""), "\(indexes)")
            }
        }
    }

    @Test("progress: records done, share, rate and ETA when the total is known")
    func progressStatus() {
        #expect(
            TransferProgress.status(done: 250, total: 1000, seconds: 2)
                == "250/1000 records (25%), 125 records/s, ETA 6 s")
        #expect(TransferProgress.status(done: 10, total: nil, seconds: 5) == "10 records, 2 records/s")
        #expect(TransferProgress.status(done: 0, total: 10, seconds: 0) == "0/10 records (0%), 0 records/s")
    }
}
