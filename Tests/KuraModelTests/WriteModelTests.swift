import KuraModel
import Testing

/// The write model both sides share: what a write does (`WriteApplier`), its wire form (`Write(json:)`/`json`) and
/// automatic IDs.
@Suite struct WriteModelTests {
    static let path = try! DocumentPath("items/d")

    static func document(_ fields: JSONObject, version: Int64 = 1) -> Document {
        Document(path: path, fields: fields, createTime: 1, updateTime: 1, version: version)
    }

    @Test func refusalsCarryTheServersCodesAndStatuses() throws {
        let existing = Self.document(["a": 1])
        let create = Write(path: Self.path, operation: .create(["b": 2]))
        #expect(throws: WriteRefusal.alreadyExists("document items/d already exists")) {
            try WriteApplier.apply(create, to: existing, commitTime: 0)
        }
        let update = Write(path: Self.path, operation: .update([(try FieldPath("a"), JSONValue.int(2))]))
        #expect(throws: WriteRefusal(.notFound, status: 404, "document items/d does not exist")) {
            try WriteApplier.apply(update, to: nil, commitTime: 0)
        }
        let pinned = Write(path: Self.path, operation: .delete, precondition: .version(7))
        #expect(throws: WriteRefusal.failedPrecondition("document items/d is not at version 7 (found version 1)")) {
            try WriteApplier.apply(pinned, to: existing, commitTime: 0)
        }
        let overlapping = Write(
            path: Self.path,
            operation: .update([(try FieldPath("a"), JSONValue.int(1)), (try FieldPath("a.b"), JSONValue.int(2))]))
        #expect(throws: WriteRefusal(.invalidArgument, status: 400, "field paths a and a.b overlap")) {
            try WriteApplier.apply(overlapping, to: existing, commitTime: 0)
        }
    }

    @Test func transformsApplyAfterTheOperation() throws {
        let write = Write(
            path: Self.path, operation: .set(["n": 1, "m": ["k": 1]], merge: true),
            transforms: [
                FieldTransform(field: try FieldPath("n"), kind: .increment(.double(0.5))),
                FieldTransform(field: try FieldPath("x.y"), kind: .delete),
                FieldTransform(field: try FieldPath("t"), kind: .serverTimestamp),
                FieldTransform(field: try FieldPath("tags"), kind: .arrayUnion([1, .double(1), "a"])),
            ])
        let fields = try WriteApplier.apply(
            write, to: Self.document(["m": ["j": 2], "tags": [1]]), commitTime: 1_000_000)
        #expect(
            fields == [
                "m": ["j": 2, "k": 1], "tags": [1, "a"], "n": .double(1.5), "t": "1970-01-01T00:00:01.000000Z",
            ])
    }

    @Test func theWireFormRoundTrips() throws {
        let writes = [
            Write(path: Self.path, operation: .create(["a": 1])),
            Write(path: Self.path, operation: .set(["a": ["b": true]], merge: true), precondition: .exists(true)),
            Write(
                path: Self.path, operation: .update([(try FieldPath(segments: ["a.b", "c"]), JSONValue.string("x"))]),
                precondition: .version(3),
                transforms: [
                    FieldTransform(field: try FieldPath("n"), kind: .increment(2)),
                    FieldTransform(field: try FieldPath("m"), kind: .maximum(.double(1.5))),
                    FieldTransform(field: try FieldPath("l"), kind: .minimum(-1)),
                    FieldTransform(field: try FieldPath("u"), kind: .arrayUnion(["a", nil])),
                    FieldTransform(field: try FieldPath("r"), kind: .arrayRemove([[1]])),
                    FieldTransform(field: try FieldPath("t"), kind: .serverTimestamp),
                    FieldTransform(field: try FieldPath("d"), kind: .delete),
                ]),
            Write(path: Self.path, operation: .delete, precondition: .exists(false)),
        ]
        for write in writes {
            let decoded = try Write(json: write.json)
            #expect(decoded.json == write.json)
            #expect(decoded.path == write.path && decoded.precondition == write.precondition)
            #expect(decoded.transforms.map { $0.field } == write.transforms.map { $0.field })
        }
        #expect(
            Write.json(path: "a/b", operation: .update(["x.`y`": 1]), precondition: nil, transforms: [])
                == ["op": "update", "data": ["x.`y`": 1], "path": "a/b"])
    }

    @Test func badWiresAreRefusedWithTheServersMessages() throws {
        let cases: [(JSONValue, String)] = [
            (1, "a write must be a JSON object"),
            (["path": "a/b", "op": "set", "extra": 1], "unknown field 'extra' in a write"),
            (["op": "delete"], "a write needs 'path'"),
            (["path": "a/b", "op": "set"], "this write needs 'data' (an object)"),
            (["path": "a/b", "op": "patch"], "'op' must be create, set, update or delete, not patch"),
            (["path": "a/b"], "'op' must be create, set, update or delete, not missing"),
            (
                ["path": "a/b", "op": "update", "data": ["a.b": 1, "`a`.b": 2]],
                "the update names the field 'a.b' twice"
            ),
            (
                ["path": "a/b", "op": "delete", "precondition": ["exists": true, "version": 1]],
                "a precondition has either 'exists' or 'version', not both"
            ),
            (
                ["path": "a/b", "op": "delete", "transforms": [["field": "n"]]],
                "a transform has 'field' and exactly one kind"
            ),
            (
                ["path": "a/b", "op": "delete", "transforms": [["field": "n", "increment": "1"]]],
                "'increment' takes a number"
            ),
            (["path": "a/b", "op": "delete", "transforms": [["field": "n", "odd": 1]]], "unknown transform 'odd'"),
            (["path": "a/b", "op": "set", "data": [:], "merge": "yes"], "'merge' must be true or false"),
        ]
        for (json, message) in cases {
            #expect(throws: ValidationError.invalidArgument(message)) { try Write(json: json) }
        }
        #expect(throws: ValidationError.self) { try Write(json: ["path": "a", "op": "delete"]) }
    }

    @Test func commitResponsesRoundTrip() throws {
        let response = CommitResponse(
            results: [
                .init(path: "a/b", version: 2, updateTime: "2026-01-01T00:00:00.000001Z"),
                .init(path: "a/c", version: 0, updateTime: "2026-01-01T00:00:00.000001Z"),
            ],
            commitTime: "2026-01-01T00:00:00.000001Z")
        #expect(
            String(decoding: response.json.jsonBytes, as: UTF8.self)
                == #"{"writeResults":[{"path":"a/b","version":2,"updateTime":"2026-01-01T00:00:00.000001Z"},"#
                + #"{"path":"a/c","version":0,"updateTime":"2026-01-01T00:00:00.000001Z"}],"#
                + #""commitTime":"2026-01-01T00:00:00.000001Z"}"#)
        #expect(CommitResponse(json: response.json) == response)
        #expect(CommitResponse(json: nil) == CommitResponse(results: [], commitTime: nil))
        #expect(
            CommitResponse(json: ["writeResults": [["version": .double(3)], 1]])
                == CommitResponse(
                    results: [
                        .init(path: "", version: 3, updateTime: ""), .init(path: "", version: 0, updateTime: ""),
                    ],
                    commitTime: nil))
    }

    @Test func automaticIDsSortByTimeAndAreBase62() {
        let early = AutoID.make(micros: 1_000_000)
        let late = AutoID.make(micros: 2_000_000)
        #expect(early.utf8.count == 20 && late.utf8.count == 20)
        #expect(early.prefix(9) < late.prefix(9))
        #expect(early.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) })
        #expect(AutoID.make(micros: 5) != AutoID.make(micros: 5))
        #expect(AutoID.make(micros: -1).prefix(9) == "000000000")
    }
}
