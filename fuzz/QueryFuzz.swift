// libFuzzer harness for query decoding and matching: the input is the JSON body of `POST /api/query`, decoded by the
// server's QueryDecoding (compiled into this module with the other Sources/KuraServer/Decoding files) through the
// wire format both sides share (KuraModel's `StructuredQuery(json:)`), written back as a query body with the
// encoding the Swift SDK sends (`StructuredQuery.json`) and decoded again; the two queries are run by KuraModel's
// QueryMatcher over documents built from the query's own values (so that filters and cursors hit, miss and tie).
// Properties: decode → encode → decode gives an equal query (composite filters included) and encode is stable
// (encode → decode → encode gives the same bytes); the model's decoder alone gives the server's query, and refuses
// what the server refuses but for the server's own rules (a limit below 1, a non-list operand of in, not-in or
// array-contains-any); both queries match the same documents and order them alike; the order is antisymmetric;
// decoding fails only with a 400 APIError/ValidationError, never a crash.
import KuraCore
import KuraModel
import KuraStore

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func queryFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let body = try? JSONValue.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    // No page size and no filter limits: what the wire format alone accepts.
    let unbounded = PageLimits(defaultPageSize: 1, maxPageSize: Int(Int64.max))
    let queryLimits = QueryLimits(
        maxDisjunctionValues: .max, maxFilterValueBytes: .max, maxFilterBytes: .max, maxFilterDisjunctions: .max)
    let model = try? StructuredQuery(json: body)
    let query: StructuredQuery
    do {
        query = try QueryDecoding.decode(body, limits: unbounded, queryLimits: queryLimits, paged: false)
    } catch {
        checkRefusal(error)
        // The server's own rules on top of the wire format: a limit of at least 1, and a list for the operators
        // that take one (checked with the filter limits; the model leaves it to NormalizedQuery).
        if let model {
            let listOperand = (model.filters + model.composites.flatMap(\.leaves)).contains {
                [.in, .notIn, .arrayContainsAny].contains($0.op) && $0.value.arrayValue == nil
            }
            require(
                (model.limit ?? 1) < 1 || listOperand,
                "the server refuses \(body.jsonString), which the model decodes: \(error)")
        }
        return 0
    }
    require(model == query, "the model decodes \(body.jsonString) otherwise than the server")
    let encoded = query.json
    let again: StructuredQuery
    do {
        again = try StructuredQuery(json: encoded)
    } catch {
        require(false, "the encoded query \(encoded.jsonString) (from \(body.jsonString)) does not decode: \(error)")
        return 0
    }
    require(again == query, "decode → encode → decode changed the query:\n\(describe(query))\n\(describe(again))")
    require(again.json.jsonBytes == encoded.jsonBytes, "encode → decode → encode changed \(encoded.jsonString)")
    let matchers: [QueryMatcher]
    do {
        matchers = [try QueryMatcher(query), try QueryMatcher(again)]
    } catch {
        checkRefusal(error)
        require((try? QueryMatcher(again)) == nil, "only one of the two equal queries is valid")
        return 0
    }
    let documents = sampleDocuments(for: query, seed: size)
    var matched: [Document] = []
    for document in documents {
        let verdicts = matchers.map { $0.matches(document) }
        require(verdicts[0] == verdicts[1], "the re-decoded query matches \(document.path) differently")
        if verdicts[0] { matched.append(document) }
    }
    record(encoded, documents, documents.map { matchers[0].matches($0) })
    for a in matched {
        require(matchers[0].compare(a, a) == 0, "\(a.path) is not level with itself")
        for b in matched {
            let order = matchers[0].compare(a, b)
            require(order == -matchers[0].compare(b, a), "the order of \(a.path) and \(b.path) is not antisymmetric")
            require(order == matchers[1].compare(a, b), "the re-decoded query orders \(a.path), \(b.path) differently")
        }
    }
    return 0
}

/// With KURA_FUZZ_RECORD=FILE, each decoded query, its documents and the verdicts are appended to FILE as a JSON
/// line, for fuzz/query-diff.mjs to compare with kura.js.
nonisolated(unsafe) private let recordFile: UnsafeMutablePointer<FILE>? = getenv("KURA_FUZZ_RECORD").flatMap {
    fopen($0, "a")
}

private func record(_ query: JSONValue, _ documents: [Document], _ matches: [Bool]) {
    guard let recordFile else { return }
    let line: JSONValue = .object([
        "query": query,
        "documents": .array(
            documents.map { .object(["path": .string($0.path.description), "data": .object($0.fields)]) }),
        "matches": .array(matches.map { .bool($0) }),
    ])
    fputs(line.jsonString + "\n", recordFile)
}

private func checkRefusal(_ error: any Error) {
    if let error = error as? APIError {
        require(error.status == 400, "a query refused with \(error.status)")
    } else {
        require(error is ValidationError, "a query refused with \(type(of: error))")
    }
}

private func describeField(_ field: QueryField) -> String {
    switch field {
    case .id: "meta:id"
    case .createTime: "meta:createTime"
    case .updateTime: "meta:updateTime"
    case .field(let path): "field:" + path.segments.map { "\(Array($0.utf8))" }.joined(separator: ".")
    }
}

/// Everything a query says, as text (field names and strings by bytes).
private func describe(_ query: StructuredQuery) -> String {
    var parts: [String] = []
    switch query.source {
    case .collection(let path): parts.append("collection \(path.segments.map { Array($0.utf8) })")
    case .collectionGroup(let id): parts.append("group \(Array(id.utf8))")
    }
    for filter in query.filters {
        parts.append("where \(describeField(filter.field)) \(filter.op.rawValue) \(filter.value.jsonBytes)")
    }
    for tree in query.composites { parts.append("where \(tree.json.jsonString)") }
    for order in query.orderBy { parts.append("order \(describeField(order.field)) \(order.descending)") }
    parts.append("limit \(String(describing: query.limit))")
    for (name, cursor) in [("start", query.start), ("end", query.end)] {
        if let cursor { parts.append("\(name) \(cursor.inclusive) \(JSONValue.array(cursor.values).jsonBytes)") }
    }
    if let select = query.select { parts.append("select \(select.map { $0.segments.map { Array($0.utf8) } })") }
    parts.append("token \(query.pageToken.map { Array($0.utf8) } ?? [])")
    return parts.joined(separator: "\n")
}

/// Documents in (and out of) the query's source whose fields take values from the query itself and a few others.
private func sampleDocuments(for query: StructuredQuery, seed: Int) -> [Document] {
    var pool: [JSONValue] = [
        .null, .bool(true), .int(0), .int(1), .double(1.5), .string("a"), .array([]), .object([:]),
    ]
    var paths: [FieldPath] = []
    func add(_ field: QueryField, _ value: JSONValue?) {
        if case .field(let path) = field { paths.append(path) }
        guard let value else { return }
        pool.append(value)
        if case .array(let elements) = value { pool += elements.prefix(8) }
    }
    for filter in query.filters + query.composites.flatMap(\.leaves) { add(filter.field, filter.value) }
    for order in query.orderBy { add(order.field, nil) }
    for cursor in [query.start, query.end].compactMap({ $0 }) { pool += cursor.values.prefix(8) }
    let ids =
        pool.compactMap { value -> String? in
            guard case .string(let s) = value, (try? ResourcePath.validateID(s)) != nil else { return nil }
            return s
        } + ["d0", "d1"]
    let collection: [String]
    switch query.source {
    case .collection(let path): collection = path.segments
    case .collectionGroup(let id): collection = ["g", "p", id]
    }
    var state = UInt64(truncatingIfNeeded: seed) &+ 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    var documents: [Document] = []
    for n in 0..<12 {
        var fields = JSONObject()
        for path in paths where next(4) != 0 { fields.setValue(pool[next(pool.count)], at: path) }
        let segments = (n == 11 ? ["elsewhere"] : collection) + [ids[next(ids.count)]]
        guard let path = try? DocumentPath(segments.joined(separator: "/")) else { continue }
        documents.append(
            Document(path: path, fields: fields, createTime: Int64(next(3)), updateTime: Int64(next(3)), version: 1))
    }
    return documents
}
