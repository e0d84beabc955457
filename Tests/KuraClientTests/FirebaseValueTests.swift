import Foundation
import Testing

@testable import KuraClient

/// Firebase-shaped data: `data()` bridged to Foundation values, writes from `[String: Any]`, `Timestamp`s.
@Suite struct FirebaseValueTests {
    @Test func dataReadsAsFirestoreDoes() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.document("users/\(uid)/notes/n1")
            try await document.setData([
                "name": "memo", "count": 3, "ratio": 2.5, "whole": 4.0, "done": true, "nothing": nil,
                "tags": ["a", "b"], "words": ["apple": "りんご"], "createdAt": FieldValue.serverTimestamp(),
            ])
            let data = try #require(try await document.getDocument().data())
            #expect(data["name"] as? String == "memo")
            #expect(data["count"] as? Int == 3)
            #expect(data["count"] as? Int64 == 3)
            #expect(data["count"] as? Double == 3.0)
            #expect(data["ratio"] as? Double == 2.5)
            #expect(data["ratio"] as? Int == nil)
            #expect(data["whole"] as? Double == 4.0)
            #expect(data["done"] as? Bool == true)
            #expect(data["nothing"] is NSNull)
            #expect(data["tags"] as? [String] == ["a", "b"])
            #expect(data["words"] as? [String: String] == ["apple": "りんご"])
            #expect((data["words"] as? [String: Any])?["apple"] as? String == "りんご")
            let createdAt = try #require(data["createdAt"] as? Timestamp)
            #expect(abs(createdAt.dateValue().timeIntervalSinceNow) < 3600)
            // The typed path is unchanged.
            let snapshot = try await document.getDocument()
            #expect(snapshot["count"] == 3)
            #expect(snapshot["createdAt"]?.timestampValue == createdAt)
            #expect(snapshot.get("words.apple") as? String == "りんご")
        }
    }

    @Test func writesTakeAnyWithPlainSwiftVariables() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let name = "memo"
            let count = 7
            let price: Double = 1.5
            let missing: String? = nil
            let words: [String: String] = ["k": "v"]
            let when = Date(timeIntervalSince1970: 1_700_000_000.25)
            let document = kura.document("users/\(uid)/notes/n2")
            try await document.setData([
                "name": name, "count": count, "price": price, "missing": missing as Any, "words": words,
                "list": [1, 2] as [Int], "when": when, "stamp": Timestamp(date: when), "nested": ["deep": ["n": count]],
            ])
            let stored = try #require(try await server.document("users/\(uid)/notes/n2"))
            #expect(stored["name"] as? String == "memo")
            #expect(stored["count"] as? Int == 7)
            #expect(stored["missing"] is NSNull)
            #expect(stored["when"] as? String == "2023-11-14T22:13:20.250000Z")
            #expect(stored["stamp"] as? String == "2023-11-14T22:13:20.250000Z")
            #expect((stored["nested"] as? [String: Any])?["deep"] as? [String: Int] == ["n": 7])
            let data = try #require(try await document.getDocument().data())
            #expect((data["when"] as? Timestamp)?.dateValue() == when)
            try await document.updateData(["count": count + 1])
            #expect(try await document.getDocument().data()?["count"] as? Int == 8)
            // Batches and transactions take the same data.
            let other = kura.document("users/\(uid)/notes/n3")
            try await kura.batch().setData(["name": name], forDocument: other).updateData(
                ["count": count], forDocument: document
            ).commit()
            let total = try await kura.runTransaction { tx in
                let read = try await tx.getDocument(document).data()?["count"] as? Int ?? 0
                let next = read + count
                try tx.updateData(["count": next, "by": name], forDocument: document)
                return next
            }
            #expect(total == 14)
            #expect(try await server.document("users/\(uid)/notes/n3")?["name"] as? String == "memo")
            #expect(try await server.document("users/\(uid)/notes/n2")?["count"] as? Int == 14)
        }
    }

    /// Values JSON cannot hold, by field name, with what the error says about each.
    static func unstorable(_ field: String) -> (value: Any, message: String)? {
        [
            "url": (URL(string: "https://example.com")!, "URL"), "bytes": (Data([1, 2]), "Data"),
            "nan": (Double.nan, "not a finite number"), "keys": ([1: "one"], "keys must be Strings"),
            "huge": (UInt64.max, "64-bit"),
        ][field]
    }

    @Test(arguments: ["url", "bytes", "nan", "keys", "huge"])
    func writesRefuseWhatJSONCannotHold(field: String) async throws {
        let (value, message) = try #require(Self.unstorable(field))
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.document("users/\(uid)/notes/bad")
            let error = await #expect(throws: KuraError.self) {
                try await document.setData(["ok": "fine", "inner": [field: value]])
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("field 'inner.\(field)'") == true)
            #expect(error?.message.contains(message) == true)
            #expect(try await server.document("users/\(uid)/notes/bad") == nil)
        }
    }

    @Test func whereFieldTakesPlainSwiftVariables() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let notes = kura.collection("users/\(uid)/notes")
            for (id, owner, rank) in [("a", "ann", 1), ("b", "bob", 2), ("c", "ann", 3)] {
                try await notes.document(id).setData(["owner": owner, "rank": rank])
            }
            let owner = "ann"
            let minimum = 2
            let owners: [String] = ["bob"]
            #expect(
                try await notes.whereField("owner", isEqualTo: owner).getDocuments().documents.map(\.documentID) == [
                    "a", "c",
                ])
            #expect(try await notes.whereField("rank", isGreaterThanOrEqualTo: minimum).count() == 2)
            #expect(try await notes.whereField("owner", in: owners).getDocuments().documents.map(\.documentID) == ["b"])
            let error = await #expect(throws: KuraError.self) {
                try await notes.whereField("owner", isEqualTo: URL(fileURLWithPath: "/")).getDocuments()
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("field 'owner'") == true)
        }
    }

    @Test func bridgingFoundationAndOptionalValues() throws {
        let parsed = try JSONSerialization.jsonObject(
            with: Data(#"{"b":true,"f":false,"i":3,"d":2.5,"s":"x","n":null,"a":[1,"y"]}"#.utf8))
        let data = try DocumentData(bridging: try #require(parsed as? [String: Any]))
        #expect(data == ["b": true, "f": false, "i": 3, "d": 2.5, "s": "x", "n": nil, "a": [1, "y"]])
        let nested: String?? = .some(nil)
        #expect(try KuraValue(bridging: nested as Any?) == .null)
        #expect(try KuraValue(bridging: Int?.some(4)) == 4)
        #expect(try KuraValue(bridging: Float(1.5)) == 1.5)
        #expect(try KuraValue(bridging: UInt8(7)) == 7)
        #expect(try KuraValue(bridging: "text"[...]) == "text")
        #expect(try KuraValue(bridging: [true, false]) == [true, false])
        #expect(try KuraValue(bridging: FieldValue.increment(1)) == FieldValue.increment(1))
        #expect(KuraValue.map(data).bridged is [String: Any])
    }

    @Test func onlyTheServersTimeFormatReadsAsTimestamp() {
        #expect(KuraValue.string("2026-11-29T15:59:28.039012Z").bridged is Timestamp)
        #expect(KuraValue.string("2026-11-29T15:59:28Z").bridged as? String == "2026-11-29T15:59:28Z")
        #expect(KuraValue.string("hello").bridged as? String == "hello")
        let stamp = Timestamp(seconds: 1_700_000_000, nanoseconds: 250_000_000)
        #expect(stamp.rfc3339 == "2023-11-14T22:13:20.250000Z")
        #expect(Timestamp(date: stamp.dateValue()) == stamp)
        #expect(Timestamp(date: Date(timeIntervalSince1970: -0.5)) == Timestamp(seconds: -1, nanoseconds: 500_000_000))
    }

    @Test func codableTimestamps() throws {
        struct Note: Codable, Equatable {
            var title: String
            var at: Timestamp
        }
        let note = Note(title: "t", at: Timestamp(seconds: 1_700_000_000, nanoseconds: 0))
        let data = try DocumentCoding.encode(note)
        #expect(data["at"] == "2023-11-14T22:13:20.000000Z")
        #expect(try DocumentCoding.decode(Note.self, from: data, documentID: nil) == note)
    }
}
