import Foundation
import Testing

@testable import KuraClient

/// What a write leaves on a document is computed once (KuraModel's `WriteApplier`): the SDK's offline cache
/// (`LocalEvaluation.apply`) and the server give the same fields for the same write on the same document. Deleting
/// a field inside a missing map is in the table on purpose: the SDK's former copy of the write application made the
/// map (`"a": {}`), the server does not.
@Suite struct OfflineWriteAgreementTests {
    static let base: DocumentData = [
        "n": 1, "d": 2.5, "s": "text", "tags": ["x", 1], "m": ["k": 1, "inner": ["z": true]], "big": .integer(.max),
    ]

    static func cases(_ path: String) throws -> [(String, Write)] {
        [
            ("delete inside a missing map", try .update(path, ["a.b": FieldValue.delete()])),
            ("delete inside a map", try .update(path, ["m.k": FieldValue.delete()])),
            ("update nested and replace", try .update(path, ["m.inner.y": 3, "s": ["t": 1]])),
            ("update a quoted name", try .update(path, ["`a.b`.c": 1, "x": .null])),
            ("increment int by double", try .update(path, ["n": FieldValue.increment(0.5)])),
            ("increment saturates", try .update(path, ["big": FieldValue.increment(Int64(5))])),
            ("increment a string", try .update(path, ["s": FieldValue.increment(Int64(2))])),
            ("increment a missing field", try .update(path, ["new": FieldValue.increment(-1.5)])),
            ("maximum equal numbers", try .update(path, ["n": FieldValue.maximum(1.0), "d": FieldValue.maximum(3)])),
            ("minimum of a string", try .update(path, ["s": FieldValue.minimum(4), "n": FieldValue.minimum(0.5)])),
            ("array union", try .update(path, ["tags": FieldValue.arrayUnion([1.0, "y", "x", ["o": 1]])])),
            (
                "array remove",
                try .update(path, ["tags": FieldValue.arrayRemove([1.0, "q"]), "s": FieldValue.arrayRemove([])])
            ),
            (
                "merge set",
                try .set(path, ["m": ["inner": ["w": 1], "k": FieldValue.delete()], "e": [:]], merge: true)
            ),
            (
                "plain set",
                try .set(path, ["only": ["a": [1, 2]], "inc": FieldValue.increment(Int64(1))], merge: false)
            ),
            ("nested transform in update", try .update(path, ["m": ["c": FieldValue.arrayUnion(["a"])]])),
        ]
    }

    @Test func writesLeaveWhatTheServerLeaves() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.collection("users/\(uid)/items").document("d")
            for (name, write) in try Self.cases(document.path) {
                try await kura.commit([try .set(document.path, Self.base, merge: false)])
                let before = try #require(try await document.fetch())
                try await kura.commit([write])
                let fromServer = try #require(try await document.fetch())
                let offline = LocalEvaluation.apply(write, to: before, time: fromServer.updateTime)
                #expect(offline?.data == fromServer.data, "\(name)")
                #expect(offline?.version == fromServer.version, "\(name)")
            }
        }
    }

    /// A write the server refuses whatever the document holds leaves the cached document as it is.
    @Test func aWriteTheServerRefusesLeavesTheDocument() throws {
        let before = RemoteDocument(
            path: "items/d", data: Self.base, createTime: "2026-01-01T00:00:00.000000Z",
            updateTime: "2026-01-01T00:00:00.000000Z", version: 3)
        let overlapping = try Write.update("items/d", ["m": 1, "m.k": 2])
        #expect(LocalEvaluation.apply(overlapping, to: before, time: "2026-01-02T00:00:00.000000Z") == before)
        let badPath = try Write.update("items/d", ["a..b": 1])
        #expect(LocalEvaluation.apply(badPath, to: before, time: "2026-01-02T00:00:00.000000Z") == before)
        #expect(LocalEvaluation.apply(try Write.update("items/e", ["a": 1]), to: nil, time: "x") == nil)
    }
}
