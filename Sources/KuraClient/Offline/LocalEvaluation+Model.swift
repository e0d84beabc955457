import Foundation
internal import KuraModel

/// The SDK's values, queries, writes and documents as the shared model's (KuraModel), so that offline results come
/// from the very code the server runs: `WriteApplier` for what a write leaves, `ValueOrdering` for the order of
/// values, `QueryMatcher` for which documents a query matches and in which order.
extension KuraValue {
    /// The model's JSON value. A `.transform` is never stored, so it has no stored value (`null`).
    var model: JSONValue {
        switch self {
        case .null, .transform: .null
        case .bool(let flag): .bool(flag)
        case .integer(let number): .int(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(\.model))
        case .map(let members): .object(JSONObject(members.map { ($0.key, $0.value.model) }))
        }
    }
}

extension Write {
    /// This write as the model's (`POST /api/commit` decodes to it): update keys and transform fields parsed as
    /// field paths. Throws the model's `ValidationError` for a path the server would refuse.
    func model() throws -> KuraModel.Write {
        let operation: KuraModel.Write.Operation
        switch self.operation {
        case .create(let data): operation = .create(Self.object(data))
        case .set(let data, let merge): operation = .set(Self.object(data), merge: merge)
        case .update(let fields): operation = .update(try fields.map { (try FieldPath($0.key), $0.value.model) })
        case .delete: operation = .delete
        }
        return KuraModel.Write(
            path: try DocumentPath(path), operation: operation, precondition: precondition?.model,
            transforms: try transforms.map {
                KuraModel.FieldTransform(field: try FieldPath($0.field), kind: $0.transform.model)
            })
    }

    private static func object(_ data: DocumentData) -> JSONObject {
        JSONObject(data.map { ($0.key, $0.value.model) })
    }
}

extension Write.Precondition {
    /// The model's precondition.
    var model: KuraModel.Precondition {
        switch self {
        case .exists(let exists): .exists(exists)
        case .version(let version): .version(version)
        }
    }
}

extension FieldTransform {
    /// The model's transform kind.
    var model: KuraModel.FieldTransform.Kind {
        switch self {
        case .serverTimestamp: .serverTimestamp
        case .increment(let operand): .increment(operand.model)
        case .maximum(let operand): .maximum(operand.model)
        case .minimum(let operand): .minimum(operand.model)
        case .arrayUnion(let elements): .arrayUnion(elements.map(\.model))
        case .arrayRemove(let elements): .arrayRemove(elements.map(\.model))
        case .delete: .delete
        }
    }
}

extension KuraError {
    /// A model `ValidationError` (`INVALID_QUERY`, `INVALID_PATH`…) as the SDK's error, with the server's code.
    init(_ error: ValidationError) {
        self.init(Code(rawValue: error.code.rawValue), error.message)
    }
}

extension Query {
    /// This query in the model's terms, as `POST /api/query` would decode it: what the SDK sends (`json`) and what
    /// it evaluates offline. Field names are parsed as the server parses them (a bad one is `.invalidQuery`);
    /// `value` turns filter operands and cursor values into the model's (by default as offline evaluation reads
    /// them; the wire refuses what JSON cannot carry).
    func structured(value: (KuraValue) throws -> JSONValue = { $0.model }) throws -> StructuredQuery {
        do {
            let source: StructuredQuery.Source
            switch self.source {
            case .collection(let segments): source = .collection(try CollectionPath(segments.joined(separator: "/")))
            case .collectionGroup(let id): source = .collectionGroup(id)
            }
            func model(_ filter: Filter) throws -> KuraModel.Filter {
                guard let op = KuraModel.Filter.Operator(rawValue: filter.op) else {
                    throw ValidationError.invalidQuery("unknown operator \(filter.op)")
                }
                return KuraModel.Filter(try QueryField(queryName: filter.field), op, try value(filter.value))
            }
            func tree(_ condition: Condition) throws -> FilterTree {
                switch condition {
                case .field(let filter): .filter(try model(filter))
                case .or(let conditions): .or(try conditions.map(tree))
                case .and(let conditions): .and(try conditions.map(tree))
                }
            }
            let orders = try orders.map {
                KuraModel.Order(try QueryField(queryName: $0.field), descending: $0.descending)
            }
            func cursor(_ cursor: Cursor) throws -> KuraModel.Cursor {
                KuraModel.Cursor(values: try cursor.values.map(value), inclusive: cursor.inclusive)
            }
            var query = StructuredQuery(
                source, filters: try filters.map(model), orderBy: orders, limit: limit, start: try start.map(cursor),
                end: try end.map(cursor))
            query.composites = try composites.map(tree)
            return query
        } catch let error as ValidationError {
            throw KuraError(error)
        }
    }
}

extension Query {
    /// The server's complete sort order (`NormalizedQuery.orders`), `nil` for a query the server would refuse.
    var modelOrders: [Order]? {
        guard let structured = try? structured(), let normalized = try? NormalizedQuery(structured) else { return nil }
        return normalized.orders.map { Order(field: $0.field.description, descending: $0.descending) }
    }
}

extension RemoteDocument {
    /// The model's document, or `nil` for a path that names no document. A time that does not parse (a document
    /// written offline before the server gave it times) counts as the epoch.
    var modelDocument: KuraModel.Document? {
        guard let path = try? DocumentPath(path) else { return nil }
        return KuraModel.Document(
            path: path, fields: JSONObject(data.map { ($0.key, $0.value.model) }),
            createTime: KuraModel.RFC3339.parse(createTime) ?? 0, updateTime: KuraModel.RFC3339.parse(updateTime) ?? 0,
            version: version)
    }
}

extension LocalEvaluation {
    /// The query run over `documents` with the server's rules (KuraModel's `QueryMatcher`): the matching ones, in
    /// the query's order, limited. A query the server would refuse throws its error (`INVALID_QUERY`).
    static func run(_ query: Query, over documents: some Sequence<RemoteDocument>) throws -> [RemoteDocument] {
        let matcher: QueryMatcher
        do { matcher = try QueryMatcher(try query.structured()) } catch let error as ValidationError {
            throw KuraError(error)
        }
        var matched: [(model: KuraModel.Document, remote: RemoteDocument)] = documents.compactMap { remote in
            guard let document = remote.modelDocument, matcher.matches(document) else { return nil }
            return (document, remote)
        }
        matched.sort { matcher.precedes($0.model, $1.model) }
        if let limit = query.limit, matched.count > limit { matched.removeLast(matched.count - limit) }
        return matched.map(\.remote)
    }

    /// The rank of a value's type in the server's order (`ValueOrdering.typeRank`): numbers are 2.
    static func rank(_ value: KuraValue) -> Int { ValueOrdering.typeRank(value.model) }

    /// -1, 0 or 1, by the server's order of values (`ValueOrdering.compare`).
    static func compare(_ lhs: KuraValue, _ rhs: KuraValue) -> Int { ValueOrdering.compare(lhs.model, rhs.model) }

    static func equal(_ lhs: KuraValue, _ rhs: KuraValue) -> Bool { compare(lhs, rhs) == 0 }
}
