import KuraCore
import KuraModel
import KuraStore
import Testing

@testable import KuraServer

/// `POST /api/query`'s body is written directly, document after document; it must be byte for byte what encoding
/// the `JSONValue` tree of the answer gives.
@Suite struct QueryResponseEncodingTests {
    static func document(_ path: String, _ fields: JSONObject, time: Int64) throws -> Document {
        Document(path: try DocumentPath(path), fields: fields, createTime: time, updateTime: time + 1, version: 3)
    }

    @Test(arguments: [nil, "tok\"en/\u{1}é"])
    func bodyIsTheTreeEncoding(token: String?) throws {
        let documents = [
            try Self.document(
                "things/a", JSONObject([("n", .int(-7)), ("s", .string("\"quoted\"\n\\ and ✓ 𝄞"))]), time: 0),
            try Self.document(
                "things/b-\u{7f}",
                JSONObject([
                    ("nested", .object(JSONObject([("x", .array([.double(2.5), .null, .bool(true)]))]))),
                    ("empty", .object(JSONObject())),
                ]), time: 1_764_547_200_123_456),
        ]
        for page in [
            QueryPage(documents: documents, nextPageToken: token), QueryPage(documents: [], nextPageToken: token),
        ] {
            let tree: JSONValue = .object([
                "documents": .array(page.documents.map(\.json)),
                "nextPageToken": page.nextPageToken.map(JSONValue.string) ?? .null,
            ])
            #expect(QueryRoutes.resultBody(page) == tree.jsonBytes)
        }
    }
}
