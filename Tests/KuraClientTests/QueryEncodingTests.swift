import Foundation
import KuraClient
import KuraModel
import Testing

/// The SDK sends its queries in the wire format the server decodes (KuraModel's `StructuredQuery.json`): what the
/// builder makes decodes to the query meant, and what the server would refuse as a malformed query is refused before
/// anything is sent, with the server's code. No server runs here: the client points at a closed port.
@Suite struct QueryEncodingTests {
    static let kura = Kura(url: URL(string: "http://127.0.0.1:1")!, settings: .init(session: .memory))

    /// The query the SDK would send, decoded as the server decodes it (`description` is that body without `limit`,
    /// which paging sets on each request).
    static func sent(_ query: KuraClient.Query) throws -> StructuredQuery {
        try StructuredQuery(json: try JSONValue.parse(Array(query.description.utf8)))
    }

    @Test func everyPartOfABuiltQueryReachesTheWire() throws {
        let query = Self.kura.collection("users/u1/todos")
            .whereField("done", isEqualTo: false)
            .whereFilter(
                .orFilter([
                    .whereField("tags", arrayContainsAny: ["a", "b"]),
                    .andFilter([.whereField("n", isGreaterThan: 1), .whereField("`x.y`", notIn: [2, 3])]),
                ])
            )
            .whereField("__name__", isLessThan: "t9")
            .order(by: "createTime", descending: true).order(by: "a.b")
            .start(after: ["2026-11-29T15:59:28.039012Z"]).end(at: ["2026-11-28T00:00:00Z", 1])
            .limit(to: 20)
        let field = { (name: String) in KuraModel.QueryField.field(try! FieldPath(name)) }
        var expected = StructuredQuery(
            .collection(try CollectionPath("users/u1/todos")),
            filters: [
                KuraModel.Filter(field("done"), .equal, false), KuraModel.Filter(.id, .lessThan, "t9"),
            ],
            orderBy: [KuraModel.Order(.createTime, descending: true), KuraModel.Order(field("a.b"))],
            start: KuraModel.Cursor(values: ["2026-11-29T15:59:28.039012Z"], inclusive: false),
            end: KuraModel.Cursor(values: ["2026-11-28T00:00:00Z", 1], inclusive: true))
        expected.composites = [
            .or([
                .filter(KuraModel.Filter(field("tags"), .arrayContainsAny, ["a", "b"])),
                .and([
                    .filter(KuraModel.Filter(field("n"), .greaterThan, 1)),
                    .filter(KuraModel.Filter(.field(try FieldPath(segments: ["x.y"])), .notIn, [2, 3])),
                ]),
            ])
        ]
        #expect(try Self.sent(query) == expected)

        let group = Self.kura.collectionGroup("todos").whereField("n", in: [1, 2]).start(at: [1]).end(before: [5])
        #expect(
            try Self.sent(group)
                == StructuredQuery(
                    .collectionGroup("todos"), filters: [KuraModel.Filter(field("n"), .in, [1, 2])],
                    start: KuraModel.Cursor(values: [1], inclusive: true),
                    end: KuraModel.Cursor(values: [5], inclusive: false)))
    }

    @Test func malformedQueriesAreRefusedBeforeAnythingIsSentWithTheServersCodes() async throws {
        let items = Self.kura.collection("items")
        for query in [
            items.whereField("a..b", isEqualTo: 1), items.order(by: ""),
            items.whereFilter(.orFilter([.whereField("`", isEqualTo: 1)])),
        ] {
            let error = await #expect(throws: KuraError.self) { try await query.getDocuments() }
            #expect(error?.code == .invalidQuery, "\(String(describing: error))")
        }
        for query in [Self.kura.collection("items/a").query, Self.kura.collectionGroup("a/b").query] {
            let error = await #expect(throws: KuraError.self) { try await query.getDocuments() }
            #expect(error?.code == .invalidPath, "\(String(describing: error))")
        }
        // JSON cannot carry a transform or an infinite number as an operand.
        for query in [
            items.whereField("t", isEqualTo: FieldValue.serverTimestamp()), items.start(at: [.double(.infinity)]),
        ] {
            let error = await #expect(throws: KuraError.self) { try await query.count() }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        }
    }
}
