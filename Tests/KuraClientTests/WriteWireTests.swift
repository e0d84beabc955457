import Foundation
import KuraModel
import Testing

@testable import KuraClient

/// The SDK sends its writes in the model's wire form (`KuraModel.Write.json(path:operation:…)`, `CommitRequest`),
/// which the server decodes with the model's `Write(json:)`: the write the server decodes is the write the SDK's
/// offline cache applies (`KuraClient.Write.model()`).
@Suite struct WriteWireTests {
    static func writes() throws -> [KuraClient.Write] {
        let path = "users/u1/items/d"
        var pinned = try KuraClient.Write.update(path, ["a.b": 1, "`x.y`.z": "t", "n": FieldValue.increment(2.5)])
        pinned.precondition = .version(4)
        var absent = KuraClient.Write.delete(path)
        absent.precondition = .exists(false)
        return [
            try .set(path, ["a": ["b": [1, 2.5, nil, "s"]], "t": FieldValue.serverTimestamp()], merge: false),
            try .set(path, ["m": ["k": FieldValue.delete(), "j": FieldValue.arrayUnion([1, "a"])]], merge: true),
            try .create(path, ["max": FieldValue.maximum(3), "min": FieldValue.minimum(-1.5), "e": [:]]),
            try .update(path, ["r": FieldValue.arrayRemove([["o": 1]]), "`a.b`": .null]),
            pinned, absent,
        ]
    }

    @Test func theServerDecodesWhatTheSDKSends() throws {
        for write in try Self.writes() {
            let decoded = try KuraModel.Write(json: write.wire)
            // As the SDK's values: maps compare without their order.
            #expect(try KuraValue(model: decoded.json) == KuraValue(model: write.model().json), "\(write.json)")
        }
    }

    @Test func theServerDecodesTheSDKsCommitBody() throws {
        let writes = try Self.writes()
        let decoded = try CommitRequest.writes(CommitRequest.json(writes: writes.map(\.wire)), maxWrites: 500)
        #expect(decoded.count == writes.count)
        #expect(throws: ValidationError.invalidArgument("a commit holds at most 2 writes, not 6")) {
            try CommitRequest.writes(CommitRequest.json(writes: writes.map(\.wire)), maxWrites: 2)
        }
    }

    @Test func theOfflineQueueReadsItsWritesBack() throws {
        for write in try Self.writes() {
            #expect(try KuraClient.Write(json: write.json) == write)
        }
    }
}
