import Foundation
import Testing

@testable import KuraClient

/// `KuraValue`, JSON text, times and `Codable` mapping, without a server.
@Suite struct ValueTests {
    @Test func literalsBuildTheExpectedValues() {
        let data: DocumentData = [
            "title": "milk", "done": false, "n": 3, "x": 1.5, "none": nil, "tags": ["a", 1], "nested": ["k": true],
        ]
        #expect(data["title"] == .string("milk"))
        #expect(data["done"] == .bool(false))
        #expect(data["n"] == .integer(3))
        #expect(data["x"] == .double(1.5))
        #expect(data["none"] == .null)
        #expect(data["tags"] == .array([.string("a"), .integer(1)]))
        #expect(data["nested"]?["k"]?.boolValue == true)
    }

    @Test(arguments: [
        (
            #"{"a":1,"b":1.0,"c":-9223372036854775808,"d":1e300,"e":"x\"\\\n\u00e9\ud83d\ude00","f":[true,null]}"#,
            KuraValue.map([
                "a": .integer(1), "b": .double(1), "c": .integer(.min), "d": .double(1e300), "e": .string("x\"\\\né😀"),
                "f": .array([.bool(true), .null]),
            ])
        )
    ])
    func jsonTextKeepsIntegersApartFromDoubles(text: String, expected: KuraValue) throws {
        let parsed = try JSONText.decode(Data(text.utf8))
        #expect(parsed == expected)
        // Written back and parsed again: the same value, doubles still doubles.
        #expect(try JSONText.decode(try JSONText.encode(parsed)) == expected)
        #expect(String(decoding: try JSONText.encode(.double(2)), as: UTF8.self) == "2.0")
    }

    @Test(arguments: ["{", "[1,]", "\"abc", "tru", "{\"a\" 1}", "1 2", "{\"a\":1,}", "{\"a\":1,\"a\":2}"])
    func malformedJSONIsRefused(text: String) {
        #expect(throws: KuraError.self) { try JSONText.decode(Data(text.utf8)) }
    }

    @Test(
        "integers past 64 bits are refused, never rounded to doubles",
        arguments: ["9223372036854775808", "[-9223372036854775809]"])
    func integersPast64BitsAreRefused(text: String) {
        #expect(throws: KuraError.self) { try JSONText.decode(Data(text.utf8)) }
    }

    @Test func unsignedFieldsPast64BitsAreRefused() {
        struct Counter: Codable { var hits: UInt64 }
        #expect(throws: KuraError.self) { try DocumentCoding.encode(Counter(hits: .max)) }
        #expect((try? DocumentCoding.encode(Counter(hits: 7)))?["hits"] == .integer(7))
    }

    @Test("a Double or Float property stays a double even when its value is integral (JSONEncoder writes 2.0 as 2)")
    func integralDoublesStayDoubles() throws {
        struct Reading: Codable {
            struct Point: Codable { var x: Double; var label: String }
            var value: Double
            var ratio: Float
            var count: Int
            var samples: [Double]
            var byName: [String: Double]
            var points: [Point]
            var missing: Double?
            var when: Date
        }
        let reading = Reading(
            value: 2, ratio: 3, count: 4, samples: [1, 2.5, -0], byName: ["a": 5],
            points: [Reading.Point(x: 6, label: "p")],
            missing: nil, when: Date(timeIntervalSince1970: 1_700_000_000))
        let data = try DocumentCoding.encode(reading)
        #expect(data["value"] == .double(2))
        #expect(data["ratio"] == .double(3))
        #expect(data["count"] == .integer(4))
        #expect(data["samples"] == .array([.double(1), .double(2.5), .double(0)]))
        #expect(data["byName"] == .map(["a": .double(5)]))
        #expect(data["points"] == .array([.map(["x": .double(6), "label": .string("p")])]))
        #expect(data["missing"] == nil)
        #expect(data["when"] == .string("2023-11-14T22:13:20.000000Z"))
        // And back: the same values.
        let decoded = try DocumentCoding.decode(Reading.self, from: data, documentID: nil)
        #expect(decoded.value == 2 && decoded.samples == [1, 2.5, 0] && decoded.points[0].x == 6)
    }

    @Test func nonFiniteDoublesCannotBeWritten() {
        #expect(throws: KuraError.self) { try JSONText.encode(.double(.infinity)) }
    }

    @Test func rfc3339RoundTripsMicroseconds() throws {
        let text = "2026-11-29T15:59:28.039012Z"
        let date = try #require(RFC3339.date(from: text))
        #expect(RFC3339.string(from: date) == text)
        #expect(RFC3339.date(from: "1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date(from: "2000-03-01T01:00:00+01:00") == RFC3339.date(from: "2000-03-01T00:00:00Z"))
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000000Z")
        #expect(RFC3339.date(from: "2026-13-01T00:00:00Z") == nil)
        #expect(RFC3339.date(from: "yesterday") == nil)
    }

    struct Todo: Codable, Equatable {
        @DocumentID var id: String?
        var title: String
        var done: Bool
        var due: Date?
        @ServerTimestamp var createdAt: Date?
    }

    @Test func codableMapsDatesAndDocumentIDs() throws {
        let due = Date(timeIntervalSince1970: 1_800_000_000.25)
        let todo = Todo(id: "ignored", title: "milk", done: false, due: due, createdAt: nil)
        let data = try DocumentCoding.encode(todo)
        // The ID is not stored, the date is an RFC 3339 string, the nil server timestamp becomes the sentinel.
        #expect(data["id"] == nil)
        #expect(data["due"] == .string(RFC3339.string(from: due)))
        #expect(data["createdAt"] == FieldValue.serverTimestamp())
        var stored = data
        stored["createdAt"] = .string("2026-01-02T03:04:05.000006Z")
        let decoded = try DocumentCoding.decode(Todo.self, from: stored, documentID: "t1")
        #expect(decoded.id == "t1")
        #expect(decoded.title == "milk")
        #expect(decoded.due.map { abs($0.timeIntervalSince(due)) < 0.000_01 } == true)
        #expect(decoded.createdAt == RFC3339.date(from: "2026-01-02T03:04:05.000006Z"))
        stored["createdAt"] = nil
        #expect(try DocumentCoding.decode(Todo.self, from: stored, documentID: "t2").createdAt == nil)
    }

    @Test func fieldValuesBecomeTransforms() throws {
        let write = try Write.set(
            "users/u/todos/t",
            [
                "title": "x", "createdAt": FieldValue.serverTimestamp(), "stats": ["plays": FieldValue.increment(2)],
                "weird.name": ["a": FieldValue.arrayUnion(["z"])],
            ],
            merge: false)
        #expect(write.operation == .set(["title": "x", "stats": [:], "weird.name": [:]], merge: false))
        let transforms = Dictionary(uniqueKeysWithValues: write.transforms.map { ($0.field, $0.transform) })
        #expect(
            transforms == [
                "createdAt": .serverTimestamp, "stats.plays": .increment(.integer(2)),
                "`weird.name`.a": .arrayUnion(["z"]),
            ])
        #expect(throws: KuraError.self) { try Write.set("a/b", ["x": FieldValue.delete()], merge: false) }
        #expect(throws: KuraError.self) { try Write.set("a/b", ["x": [FieldValue.increment(1)]], merge: true) }
        let update = try Write.update("a/b", ["a.b": FieldValue.delete(), "c": 1])
        #expect(update.operation == .update(["c": 1]))
        #expect(update.transforms.map(\.field) == ["a.b"])
        // The JSON form survives the offline queue's round trip.
        #expect(try Write(json: write.json) == write)
    }

    @Test(arguments: [
        ("users/u1", true), ("users", false), ("users/u1/todos", false), ("a//b", true),
        ("users/__x__", true), ("users/.", true),
    ])
    func pathsAreCheckedOnTheClient(path: String, document: Bool) {
        let segments = ResourcePath.split(path)
        let valid = (try? ResourcePath.validate(segments, document: document)) != nil
        #expect(valid == (path == "users/u1" || path == "users" || path == "users/u1/todos"))
    }

    @Test func automaticIDsLookLikeTheServersAndSortByTime() {
        let early = AutoID.make(now: Date(timeIntervalSince1970: 1_000))
        let late = AutoID.make(now: Date(timeIntervalSince1970: 2_000))
        #expect(early.count == 20 && late.count == 20)
        #expect(early.prefix(9) < late.prefix(9))
        #expect(AutoID.make() != AutoID.make())
    }

    @Test func errorCodesMapBothWays() {
        #expect(KuraError.Code(rawValue: "PERMISSION_DENIED") == .permissionDenied)
        #expect(KuraError.Code(rawValue: "EMAIL_EXISTS") == .emailExists)
        #expect(KuraError.Code(rawValue: "SOMETHING_NEW") == .unknown("SOMETHING_NEW"))
        #expect(KuraError.Code.failedPrecondition.rawValue == "FAILED_PRECONDITION")
    }
}
