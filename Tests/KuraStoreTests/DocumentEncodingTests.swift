import KuraCore
import KuraModel
import Testing

@testable import KuraStore

/// `Document.jsonBytes` writes the API representation directly; it must be byte for byte `Document.json`'s
/// encoding, which the parser reads back.
@Suite struct DocumentEncodingTests {
    static let documents: [(path: String, fields: JSONObject, createTime: Int64, updateTime: Int64, version: Int64)] = [
        ("notes/n1", [:], 0, 0, 1),
        (
            "users/u1/todos/t\"9", ["title": "買い物\n\"milk\"", "done": false, "n": 3, "x": 0.5, "tags": ["a", "b"]],
            1_764_430_886_123_456, 1_764_430_886_654_321, 7
        ),
        ("a/`b.c`", ["nested": ["deep": ["k": .null]], "big": .int(Int64.max)], -1_000_001, 86_400_000_000, 42),
    ]

    @Test(arguments: 0..<documents.count)
    func directEncodingEqualsTheTreeEncoding(index: Int) throws {
        let d = Self.documents[index]
        let document = Document(
            path: try DocumentPath(d.path), fields: d.fields, createTime: d.createTime, updateTime: d.updateTime,
            version: d.version)
        #expect(document.jsonBytes == document.json.jsonBytes)
        let parsed = try JSONValue.parse(document.jsonBytes)
        #expect(parsed == document.json)
    }
}

/// The index entries of a document name each field by its canonical dotted path (`FieldPath.description`), at
/// every object level, with one entry per distinct array element.
@Suite struct IndexEntryTests {
    @Test func fieldPathsAreCanonicalAtEveryLevel() throws {
        let fields: JSONObject = [
            "a": ["b c": ["`x": 1]], "1st": 2, "tags": ["t", "t", "u"], "plain_name": ["inner": true],
        ]
        let entries = IndexEntries.of(fields)
        let named = entries.map { "\($0.kind) \($0.field)" }
        #expect(
            named == [
                "0 a", "0 a.`b c`", "0 a.`b c`.`\\`x`", "0 `1st`", "0 tags", "1 tags", "1 tags", "0 plain_name",
                "0 plain_name.inner",
            ])
        // Each name is what FieldPath itself writes, and reads back as the same path.
        let paths: [[String]] = [
            ["a"], ["a", "b c"], ["a", "b c", "`x"], ["1st"], ["tags"], ["tags"], ["tags"], ["plain_name"],
            ["plain_name", "inner"],
        ]
        for (entry, segments) in zip(entries, paths) {
            #expect(entry.field == FieldPath(unchecked: segments).description)
            #expect(try FieldPath(entry.field).segments == segments)
        }
        #expect(entries[5].value == IndexKey.encode("t") && entries[6].value == IndexKey.encode("u"))
    }
}
