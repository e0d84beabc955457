import Foundation
import KuraCore
import KuraTestSupport
import Testing

@testable import KuraServer

/// `kura import` refuses every kind of bad line with its line number, before writing anything.
@Suite struct TransferLineTests {
    static let hash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g"

    /// A valid export file, by hand: the header, rules, one index, one account, two documents.
    static let good: [String] = [
        #"{"kind":"header","format":"kura-export","formatVersion":1,"kura":"0.1.0","engine":"sqlite","#
            + #""time":"2026-01-01T00:00:00.000000Z","documents":2,"accounts":1,"indexes":1,"rules":1}"#,
        #"{"kind":"rules","source":"rules_version = '1';\nmatch /notes/{id} { allow read: if true; }\n"}"#,
        #"{"kind":"index","index":{"collectionGroup":"notes","queryScope":"COLLECTION","fields":["#
            + #"{"fieldPath":"a","order":"ASCENDING"},{"fieldPath":"b","order":"DESCENDING"}]}}"#,
        account(),
        document("notes/a"),
        document("notes/b"),
    ]

    static func account(
        uid: String = "u1", email: String = "ann@example.com", hash: String = hash, claims: String = "{}",
        extra: String = ""
    ) -> String {
        #"{"kind":"account","uid":"\#(uid)","email":"\#(email)","emailVerified":true,"displayName":"Ann","#
            + #""passwordHash":"\#(hash)","disabled":false,"customClaims":\#(claims),"#
            + #""createTime":"2026-01-01T00:00:00.000000Z","lastSignInTime":null\#(extra)}"#
    }

    static func document(
        _ path: String, created: String = "2026-01-01T00:00:00.000000Z", updated: String = "2026-01-02T00:00:00Z",
        version: String = "1", data: String = #"{"a":1}"#, extra: String = ""
    ) -> String {
        #"{"kind":"document","path":"\#(path)","createTime":"\#(created)","updateTime":"\#(updated)","#
            + #""version":\#(version),"data":\#(data)\#(extra)}"#
    }

    /// One bad file: `line` of the good file replaced (or, `inserted`, a line put before it), and what the error
    /// must say.
    struct BadLine: Sendable, CustomTestStringConvertible {
        var name: String
        var line: Int
        var text: String
        var inserted = false
        var message: String
        var testDescription: String { name }
    }

    static let badLines: [BadLine] = [
        BadLine(name: "not JSON", line: 5, text: "{oops", message: "not valid JSON"),
        BadLine(name: "not an object", line: 5, text: "[1,2]", message: "not a JSON object"),
        BadLine(name: "empty line", line: 5, text: "", message: "empty line"),
        BadLine(name: "no kind", line: 5, text: #"{"path":"notes/a"}"#, message: "missing \"kind\""),
        BadLine(name: "unknown kind", line: 5, text: #"{"kind":"widget"}"#, message: "unknown kind 'widget'"),
        BadLine(name: "a second header", line: 5, text: good[0], message: "a second header"),
        BadLine(name: "no header", line: 1, text: good[1], message: "not a Kura export file"),
        BadLine(
            name: "a newer format", line: 1,
            text: good[0].replacingOccurrences(of: #""formatVersion":1"#, with: #""formatVersion":2"#),
            message: "formatVersion 2 is not supported"),
        BadLine(
            name: "header count not a number", line: 1,
            text: good[0].replacingOccurrences(of: #""documents":2"#, with: #""documents":"2""#),
            message: "documents must be an integer"),
        BadLine(
            name: "document path of a collection", line: 5, text: document("notes"),
            message: "'notes' is not a document path"),
        BadLine(
            name: "document time", line: 5, text: document("notes/a", created: "yesterday"),
            message: "createTime 'yesterday' is not an RFC 3339 time"),
        BadLine(
            name: "document times reversed", line: 5,
            text: document("notes/a", created: "2026-02-01T00:00:00Z", updated: "2026-01-01T00:00:00Z"),
            message: "updateTime is before createTime"),
        BadLine(
            name: "document version 0", line: 5, text: document("notes/a", version: "0"),
            message: "version must be at least 1"),
        BadLine(
            name: "document version not an integer", line: 5, text: document("notes/a", version: "1.5"),
            message: "version must be an integer"),
        BadLine(
            name: "document data not an object", line: 5, text: document("notes/a", data: "[1]"),
            message: "data must be an object"),
        BadLine(
            name: "document field name", line: 5, text: document("notes/a", data: #"{"":1}"#),
            message: "data: field names must not be empty"),
        BadLine(
            name: "document unknown member", line: 5, text: document("notes/a", extra: #","id":"a""#),
            message: "unknown member 'id' in a document line"),
        BadLine(
            name: "document without data", line: 5,
            text: #"{"kind":"document","path":"notes/a","createTime":"2026-01-01T00:00:00Z","#
                + #""updateTime":"2026-01-01T00:00:00Z","version":1}"#,
            message: "a document line needs \"data\""),
        BadLine(
            name: "document twice", line: 6, text: document("notes/a"), message: "document notes/a is listed twice"),
        BadLine(
            name: "account email", line: 4, text: account(email: "not-an-address"), message: "exactly one @"),
        BadLine(
            name: "account email not normalised", line: 4, text: account(email: "ann@EXAMPLE.com"),
            message: "normalised form"),
        BadLine(
            name: "account hash", line: 4, text: account(hash: "plain-text-password"),
            message: "not an argon2id hash"),
        BadLine(
            name: "account hash with a practically endless cost", line: 4,
            text: account(hash: "$argon2id$v=19$m=65536,t=4294967295,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g"),
            message: "passwordHash has t=4294967295, outside 1-10 (auth.argon2MaxIterations)"),
        BadLine(
            name: "account hash with 2 GiB of memory", line: 4,
            text: account(hash: "$argon2id$v=19$m=2097152,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g"),
            message: "passwordHash has m=2097152, outside 8-1048576 KiB (auth.argon2MaxMemoryKiB)"),
        BadLine(
            name: "account hash with 64 lanes", line: 4,
            text: account(hash: "$argon2id$v=19$m=65536,t=2,p=64$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g"),
            message: "passwordHash has p=64, outside 1-16 (auth.argon2MaxParallelism)"),
        BadLine(
            name: "account hash of another version", line: 4,
            text: account(hash: "$argon2id$v=16$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g"),
            message: "passwordHash has version v=16"),
        BadLine(
            name: "account hash with a short salt", line: 4,
            text: account(hash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2g"),
            message: "passwordHash has a 4-byte salt"),
        BadLine(
            name: "account uid", line: 4, text: account(uid: "a/b"), message: "uid must be 1-128 printable ASCII"),
        BadLine(
            name: "account reserved claim", line: 4, text: account(claims: #"{"sub":"x"}"#),
            message: "the claim name sub is reserved"),
        BadLine(
            name: "account claims not an object", line: 4, text: account(claims: "[]"),
            message: "customClaims must be an object"),
        BadLine(
            name: "account disabled not a flag", line: 4,
            text: account().replacingOccurrences(of: #""disabled":false"#, with: #""disabled":"no""#),
            message: "disabled must be true or false"),
        BadLine(
            name: "account twice", line: 5, text: account(email: "other@example.com"), inserted: true,
            message: "account u1 is listed twice"),
        BadLine(
            name: "address twice", line: 5, text: account(uid: "u2"), inserted: true,
            message: "ann@example.com is also the address of account u1"),
        BadLine(
            name: "rules that do not compile", line: 2, text: #"{"kind":"rules","source":"match {"}"#,
            message: "the rules do not compile"),
        BadLine(
            name: "rules twice", line: 3, text: good[1], inserted: true, message: "a second rules line"),
        BadLine(
            name: "index", line: 3, text: #"{"kind":"index","index":{"collectionGroup":"notes"}}"#,
            message: "index:"),
        BadLine(name: "index twice", line: 4, text: good[2], inserted: true, message: "is listed twice"),
    ]

    static func configuration(_ dataDirectory: String) -> KuraConfiguration {
        TransferRoundTripTests.configuration(dataDirectory)
    }

    static func importing(_ lines: [String], into target: String, in scratch: TemporaryDirectory) throws
        -> TransferSummary
    {
        let file = scratch.file("import-\(SecureRandom.hex(4)).ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return try KuraNode.importFile(
            configuration: configuration(target), from: file, logger: TransferRoundTripTests.quiet,
            interactive: false)
    }

    @Test("the hand-written file imports", .timeLimit(.minutes(1)))
    func goodFile() throws {
        let scratch = try TemporaryDirectory("transfer-lines")
        defer { scratch.remove() }
        let summary = try Self.importing(Self.good, into: scratch.file("data"), in: scratch)
        #expect(summary == TransferSummary(documents: 2, accounts: 1, indexes: 1, rules: 1))
    }

    @Test("a bad line is refused with its number, and nothing is imported", arguments: badLines)
    func badLine(_ bad: BadLine) throws {
        let scratch = try TemporaryDirectory("transfer-lines")
        defer { scratch.remove() }
        var lines = Self.good
        if bad.inserted {
            lines.insert(bad.text, at: bad.line - 1)
        } else {
            lines[bad.line - 1] = bad.text
        }
        let target = scratch.file("data")
        #expect {
            try Self.importing(lines, into: target, in: scratch)
        } throws: { error in
            guard let error = error as? TransferError else { return false }
            let located = error.message.contains(".ndjson:\(bad.line): ")
            let said = error.message.contains(bad.message)
            if !located || !said { Issue.record("\(bad.name): \(error.message)") }
            return located && said && error.exitCode == 2
        }
        // Nothing was left behind: the data directory did not exist, and it still does not.
        #expect(!FileManager.default.fileExists(atPath: target), "\(bad.name): the refused import left \(target)")
        // Nothing was written: the good file still goes into the same target, which is only possible when empty.
        #expect(try Self.importing(Self.good, into: target, in: scratch).documents == 2)
    }

    @Test("a file cut short (fewer records than its header announces) is refused as a whole")
    func cutShort() throws {
        let scratch = try TemporaryDirectory("transfer-lines")
        defer { scratch.remove() }
        let target = scratch.file("data")
        #expect {
            try Self.importing(Array(Self.good.dropLast()), into: target, in: scratch)
        } throws: { error in
            (error as? TransferError)?.message.contains("the header announces 2 documents but the file holds 1")
                == true
        }
        #expect(try Self.importing(Self.good, into: target, in: scratch).documents == 2)
        #expect {
            try Self.importing([], into: scratch.file("other"), in: scratch)
        } throws: { error in (error as? TransferError)?.message.contains(":1: ") == true }
    }

    @Test("--merge: an address that belongs to another account of the target is refused at its line")
    func mergeAddressConflict() throws {
        let scratch = try TemporaryDirectory("transfer-lines")
        defer { scratch.remove() }
        let target = scratch.file("data")
        var other = Self.good
        other[3] = Self.account(uid: "u9")  // ann@example.com under another uid
        other[4] = Self.document("notes/c")
        other[5] = Self.document("notes/d")
        _ = try Self.importing(other, into: target, in: scratch)
        let file = scratch.file("merge.ndjson")
        try (Self.good.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try KuraNode.importFile(
                configuration: Self.configuration(target), from: file, merge: true,
                logger: TransferRoundTripTests.quiet, interactive: false)
        } throws: { error in
            (error as? TransferError)?.message.contains("merge.ndjson:4: ann@example.com belongs to account u9") == true
        }
        // Nothing of the file went in: notes/a is still missing, u9 keeps the address.
        let summary = try KuraNode.export(
            configuration: Self.configuration(target), to: scratch.file("after.ndjson"),
            logger: TransferRoundTripTests.quiet, interactive: false)
        #expect(summary.documents == 2)
        let after = try String(contentsOfFile: scratch.file("after.ndjson"), encoding: .utf8)
        #expect(after.contains("notes/c") && !after.contains("notes/a"))
    }
}
