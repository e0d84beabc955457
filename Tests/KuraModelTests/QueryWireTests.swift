import KuraModel
import Testing

/// The query's wire format both sides share (`StructuredQuery(json:)` decodes what the server reads, `json` encodes
/// what the Swift SDK sends): every shape docs/api.md shows round-trips, and every mistake is refused with the code
/// docs/api.md gives.
@Suite struct QueryWireTests {
    /// Query bodies in the encoder's own spelling (its member order, `direction` always given), so that decoding
    /// then encoding must give back the very bytes: the shapes of docs/api.md's "Queries", "`or` and `and`
    /// filters" and "Aggregations" sections, every operator, every cursor and the metadata fields.
    static let canonical = [
        #"{"collection":"users/u1/todos","where":[{"field":"done","op":"==","value":false}],"orderBy":[{"field":"createTime","direction":"desc"}],"limit":20,"startAfter":["2026-11-29T15:59:28.039012Z"],"select":["title"],"pageToken":"…"}"#,
        #"{"collectionGroup":"todos"}"#,
        #"{"collection":"cities","where":[{"field":"country","op":"==","value":"JP"},{"or":[{"field":"capital","op":"==","value":true},{"and":[{"field":"population","op":">=","value":1000000},{"field":"coastal","op":"==","value":true}]}]}]}"#,
        #"{"collection":"orders","where":[{"field":"status","op":"==","value":"paid"}]}"#,
        #"{"collection":"c","where":[{"field":"a","op":"!=","value":1},{"field":"b","op":"<","value":2.5},{"field":"c","op":"<=","value":"x"},{"field":"d","op":">","value":null},{"field":"e","op":">=","value":[1]},{"field":"f","op":"in","value":[1,"a"]},{"field":"g","op":"not-in","value":[{"k":1}]},{"field":"h","op":"array-contains","value":{"x":[]}},{"field":"i","op":"array-contains-any","value":[1,2]}]}"#,
        #"{"collection":"c","orderBy":[{"field":"a.b","direction":"asc"},{"field":"id","direction":"desc"}],"startAt":[1,"d"],"endBefore":[9]}"#,
        #"{"collection":"c","orderBy":[{"field":"`id`","direction":"asc"}],"startAfter":[1],"endAt":[2]}"#,
        #"{"collection":"c","where":[{"field":"updateTime","op":"<","value":"2026-11-29T15:59:28Z"},{"field":"`x.y`.z","op":"==","value":1}],"select":["a","`b.c`"]}"#,
        #"{"collection":"c","where":[{"and":[{"field":"a","op":"==","value":1},{"or":[{"field":"b","op":"==","value":2},{"field":"c","op":"==","value":3}]}]}]}"#,
        #"{"collection":"a/b/c","limit":0,"select":[]}"#,
    ]

    static func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test(arguments: canonical) func documentedShapesRoundTrip(_ text: String) throws {
        let body = try Self.parse(text)
        let query = try StructuredQuery(json: body)
        #expect(query.json == body)
        #expect(query.json.jsonString == text)
        #expect(try StructuredQuery(json: query.json) == query)
    }

    @Test func decodesToTheModelsTerms() throws {
        let query = try StructuredQuery(json: try Self.parse(Self.canonical[0]))
        var expected = StructuredQuery(
            .collection(try CollectionPath("users/u1/todos")),
            filters: [Filter(.field(try FieldPath("done")), .equal, false)],
            orderBy: [Order(.createTime, descending: true)], limit: 20,
            start: Cursor(values: ["2026-11-29T15:59:28.039012Z"], inclusive: false), select: [try FieldPath("title")],
            pageToken: "…")
        #expect(query == expected)
        expected.limit = 21
        #expect(query != expected)

        let cities = try StructuredQuery(json: try Self.parse(Self.canonical[2]))
        #expect(cities.filters == [Filter(.field(try FieldPath("country")), .equal, "JP")])
        #expect(cities.composites.count == 1)
        #expect(cities.composites.first?.leaves.map(\.field.description) == ["capital", "population", "coastal"])
    }

    @Test func otherSpellingsDecodeToTheSameQuery() throws {
        let loose = try StructuredQuery(
            json: try Self.parse(
                #"{"pageToken":null,"orderBy":[{"field":"__name__","direction":"DESCENDING"},{"field":"n"}],"collection":"c","where":[{"or":[{"value":1,"op":"==","field":"a"}]},{"field":"b","op":"==","value":2}]}"#
            ))
        let text =
            #"{"collection":"c","where":[{"field":"b","op":"==","value":2},{"or":[{"field":"a","op":"==","value":1}]}],"orderBy":[{"field":"id","direction":"desc"},{"field":"n","direction":"asc"}]}"#
        #expect(loose.json.jsonString == text)
        #expect(try StructuredQuery(json: loose.json) == loose)
    }

    /// Mistakes the wire format itself refuses, with docs/api.md's codes; the server answers each 400 (it checks
    /// its own settings, the page size and the filter limits, beside them; DocumentQueryTests).
    @Test(
        arguments: [
            (#"{"collection":"items","bogus":1}"#, "unknown field 'bogus' in the query"),
            (#"{"collection":"items","where":[{"field":"n","op":"~=","value":1}]}"#, nil),
            (#"{"collection":"items","where":[{"field":"n","op":"=="}]}"#, "a 'where' clause needs 'value'"),
            (#"{"collection":"items","where":[{"op":"==","value":1}]}"#, "a 'where' clause needs 'field'"),
            (#"{"collection":"items","where":[{"field":"n","value":1}]}"#, "a 'where' clause needs 'op'"),
            (#"{"collection":"items","where":[{"field":"n","op":"==","value":1,"extra":true}]}"#, nil),
            (#"{"collection":"items","where":{"field":"n"}}"#, "'where' must be an array"),
            (#"{"collection":"items","where":[5]}"#, "a 'where' clause must be a JSON object"),
            (#"{"collection":"items","where":[{"or":[]}]}"#, "'or' takes a non-empty array of filters"),
            (#"{"collection":"items","where":[{"and":{"field":"n"}}]}"#, "'and' takes a non-empty array of filters"),
            (#"{"collection":"items","where":[{"or":[{"field":"a..b","op":"==","value":1}]}]}"#, nil),
            (#"{"collection":"items","where":[{"field":"a..b","op":"==","value":1}]}"#, nil),
            (
                #"{"collection":"items","orderBy":[{"field":"n","direction":"up"}]}"#,
                "direction 'up' must be 'asc' or 'desc'"
            ),
            (#"{"collection":"items","orderBy":["n"]}"#, "an 'orderBy' entry must be a JSON object"),
            (#"{"collection":"items","orderBy":[{"direction":"asc"}]}"#, "'orderBy' entries need 'field'"),
            (#"{"collection":"items","orderBy":[{"field":""}]}"#, nil),
            (#"{"collection":"items","limit":"ten"}"#, "'limit' must be an integer"),
            (#"{"collection":"items","limit":1.5}"#, "'limit' must be an integer"),
            (#"{"collection":"items","startAt":[1],"startAfter":[1]}"#, "use only one of 'startAt' and 'startAfter'"),
            (#"{"collection":"items","endAt":[1],"endBefore":[1]}"#, "use only one of 'endAt' and 'endBefore'"),
            (#"{"collection":"items","endAt":1}"#, "'endAt' must be an array"),
            (#"{"collection":"items","select":[1]}"#, "'select' lists field names"),
            (#"{"collection":"items","select":["a..b"]}"#, nil),
            (#"{"collection":"items","pageToken":5}"#, "'pageToken' must be a string"),
            (#"{"collection":5}"#, "'collection' must be a string"),
            (#"{}"#, "a query needs exactly one of 'collection' and 'collectionGroup'"),
            (#"{"collection":"items","collectionGroup":"items"}"#, nil),
            (#"[]"#, "the query must be a JSON object"),
        ] as [(String, String?)])
    func mistakesAreInvalidQuery(_ text: String, _ message: String?) throws {
        let error = #expect(throws: ValidationError.self) { try StructuredQuery(json: try Self.parse(text)) }
        #expect(error?.code == .invalidQuery, "\(text)")
        if let message { #expect(error?.message == message, "\(text)") }
    }

    @Test(
        arguments: [
            #"{"collection":"items/a"}"#, #"{"collection":"items//a/b"}"#, #"{"collection":"__items__"}"#,
            #"{"collectionGroup":"__x__"}"#, #"{"collectionGroup":"a/b"}"#,
        ])
    func aBadSourceIsInvalidPath(_ text: String) throws {
        let error = #expect(throws: ValidationError.self) { try StructuredQuery(json: try Self.parse(text)) }
        #expect(error?.code == .invalidPath, "\(text)")
    }

    @Test func aFilterCheckIsAnsweredBeforeTheMembersAfterWhere() throws {
        struct TooMany: Error {}
        let body = try Self.parse(
            #"{"collection":"c","where":[{"field":"a","op":"in","value":[1,2]},{"or":[{"field":"b","op":"==","value":1}]}],"orderBy":5}"#
        )
        var seen: (filters: Int, composites: Int)?
        #expect(throws: TooMany.self) {
            try StructuredQuery(json: body) { filters, composites in
                seen = (filters.count, composites.count)
                throw TooMany()
            }
        }
        #expect(seen?.filters == 1 && seen?.composites == 1)
        // Without the check, the bad `orderBy` is the mistake.
        #expect(throws: ValidationError.invalidQuery("'orderBy' must be an array")) {
            try StructuredQuery(json: body)
        }
    }

    @Test func fieldNamesOfQueriesAreQueryMistakes() throws {
        #expect(try QueryField(queryName: "__name__") == .id)
        #expect(try QueryField(queryName: "`id`") == .field(try FieldPath("id")))
        #expect(throws: ValidationError.invalidQuery("invalid field path 'a..b': empty field name")) {
            try QueryField(queryName: "a..b")
        }
    }
}
