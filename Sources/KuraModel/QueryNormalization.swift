/// A validated query with Firestore's implicit rules applied, ready for an engine to plan:
/// - composite filters are simplified: top-level `and`s become plain filters, an `or` or `and` of one condition is
///   that condition, nested `or`s (and `and`s) merge; what remains are `or`s (`disjunctions`);
/// - every field with an inequality filter (`< <= > >= != not-in`, anywhere in the filters) that is not ordered on
///   becomes a sort key after the orderBy fields, in field-name order, in the direction of the last orderBy;
/// - the last sort key is `id` (in the direction of the previous key) unless `id` is already ordered on;
/// - `createTime`/`updateTime` operands are converted from RFC 3339 strings to `.int` microseconds;
/// - cursor values are checked against the sort keys and a page token becomes an exclusive start position.
public struct NormalizedQuery: Sendable {
    /// Where documents come from.
    public var source: StructuredQuery.Source
    /// The filters (operands validated and converted).
    public var filters: [Filter]
    /// Composite filters, each an `or` of two or more conditions, that must all hold too (operands converted).
    public var disjunctions: [FilterTree]
    /// The complete sort order, ending with `id`.
    public var orders: [Order]
    /// Most documents returned.
    public var limit: Int?
    /// Start cursor (values converted like filter operands).
    public var start: Cursor?
    /// End cursor.
    public var end: Cursor?
    /// Resume strictly after this position (from a page token): one value per sort key and the document path.
    public var after: (values: [JSONValue], path: DocumentPath)?
    /// Projection.
    public var select: [FieldPath]?
    /// The work the engine may spend (`StructuredQuery.budget`).
    public var budget: QueryBudget?

    /// Most operands of `in`, `not-in` and `array-contains-any`.
    public static let maxDisjunction = 30

    /// Validates `query`; throws 400 `INVALID_QUERY`.
    public init(_ query: StructuredQuery) throws {
        source = query.source
        if case .collectionGroup(let id) = query.source {
            do { try ResourcePath.validateID(id) } catch { throw ValidationError.invalidQuery("invalid collection ID") }
        }
        var flat = query.filters
        var trees: [FilterTree] = []
        for tree in query.composites {
            switch try Self.simplify(tree) {
            case .filter(let filter): flat.append(filter)
            case .and(let children):
                for child in children {
                    if case .filter(let filter) = child { flat.append(filter) } else { trees.append(child) }
                }
            case let or: trees.append(or)
            }
        }
        filters = try flat.map(Self.validate)
        disjunctions = try trees.map { try $0.mapLeaves(Self.validate) }
        let leaves = filters + disjunctions.flatMap(\.leaves)
        if leaves.filter({ $0.op == .arrayContains || $0.op == .arrayContainsAny }).count > 1 {
            throw ValidationError.invalidQuery("at most one array-contains or array-contains-any filter")
        }
        if leaves.filter({ $0.op == .notIn }).count > 1
            || (leaves.contains { $0.op == .notIn } && leaves.contains { $0.op == .notEqual })
        {
            throw ValidationError.invalidQuery("not-in cannot be combined with another not-in or with !=")
        }
        if !disjunctions.isEmpty && leaves.contains(where: { $0.op == .notIn }) {
            throw ValidationError.invalidQuery("not-in cannot be combined with an or filter")
        }
        var orders = query.orderBy
        if Set(orders.map(\.field)).count != orders.count {
            throw ValidationError.invalidQuery("a field is ordered on more than once")
        }
        // Firestore's implicit order: inequality fields not ordered on, by field name, after the orderBy fields.
        let ordered = Set(orders.map(\.field))
        var implicit: [QueryField] = []
        for filter in leaves where filter.op.isInequality && filter.field != .id {
            if !ordered.contains(filter.field) && !implicit.contains(filter.field) { implicit.append(filter.field) }
        }
        let direction = orders.last?.descending ?? false
        orders += implicit.sorted(by: Self.fieldNamePrecedes).map { Order($0, descending: direction) }
        if !orders.contains(where: { $0.field == .id }) {
            orders.append(Order(.id, descending: orders.last?.descending ?? false))
        }
        self.orders = orders
        if let limit = query.limit, limit < 0 { throw ValidationError.invalidQuery("limit must not be negative") }
        limit = query.limit
        start = try query.start.map { try Self.convert($0, orders: orders) }
        end = try query.end.map { try Self.convert($0, orders: orders) }
        select = query.select
        budget = query.budget
        if let token = query.pageToken { after = try PageToken.decode(token, orders: orders) }
    }

    /// A page token that resumes strictly after `document`, which must be a full (not projected) document that
    /// this query matched. Lets a caller that filters results end a page at any document it examined.
    public func pageToken(after document: Document) -> String { PageToken.encode(document, orders: orders) }

    /// `tree` with one-condition composites replaced by their condition and nested composites of the same kind
    /// merged; an empty composite is 400 `INVALID_QUERY`.
    private static func simplify(_ tree: FilterTree) throws -> FilterTree {
        func merged(_ children: [FilterTree], or: Bool) throws -> FilterTree {
            guard !children.isEmpty else {
                throw ValidationError.invalidQuery("an '\(or ? "or" : "and")' filter needs at least one filter")
            }
            var out: [FilterTree] = []
            for child in try children.map(simplify) {
                switch (child, or) {
                case (.or(let inner), true), (.and(let inner), false): out += inner
                default: out.append(child)
                }
            }
            return out.count == 1 ? out[0] : or ? .or(out) : .and(out)
        }
        switch tree {
        case .filter: return tree
        case .or(let children): return try merged(children, or: true)
        case .and(let children): return try merged(children, or: false)
        }
    }

    /// Field-name order of the implicit sort keys: field names compared one by one, by UTF-8 bytes.
    package static func fieldNamePrecedes(_ lhs: QueryField, _ rhs: QueryField) -> Bool {
        func names(_ field: QueryField) -> [String] {
            if case .field(let path) = field { return path.segments }
            return [field.description]
        }
        let l = names(lhs)
        let r = names(rhs)
        for (a, b) in zip(l, r) where !a.bytesEqual(b) { return a.bytesPrecede(b) }
        return l.count < r.count
    }

    private static func validate(_ filter: Filter) throws -> Filter {
        var filter = filter
        switch filter.op {
        case .in, .notIn, .arrayContainsAny:
            guard let values = filter.value.arrayValue, !values.isEmpty, values.count <= maxDisjunction else {
                throw ValidationError.invalidQuery(
                    "\(filter.op.rawValue) needs an array of 1 to \(maxDisjunction) values")
            }
            filter.value = .array(try values.map { try convert($0, for: filter.field) })
        case .arrayContains:
            break
        default:
            filter.value = try convert(filter.value, for: filter.field)
        }
        if case .field = filter.field {
        } else if filter.op == .arrayContains || filter.op == .arrayContainsAny {
            throw ValidationError.invalidQuery("\(filter.op.rawValue) cannot be used on \(filter.field)")
        }
        return filter
    }

    /// Metadata operands: `id` takes a string, the times take RFC 3339 strings (converted to microseconds).
    package static func convert(_ value: JSONValue, for field: QueryField) throws -> JSONValue {
        switch field {
        case .field: return value
        case .id:
            guard case .string = value else { throw ValidationError.invalidQuery("id values must be strings") }
            return value
        case .createTime, .updateTime:
            guard case .string(let text) = value, let micros = RFC3339.parse(text) else {
                throw ValidationError.invalidQuery(
                    "\(field) values must be RFC 3339 timestamps of real dates, at most microsecond precision")
            }
            return .int(micros)
        }
    }

    private static func convert(_ cursor: Cursor, orders: [Order]) throws -> Cursor {
        guard !cursor.values.isEmpty, cursor.values.count <= orders.count else {
            throw ValidationError.invalidQuery("a cursor needs 1 to \(orders.count) values, one per orderBy field")
        }
        let values = try zip(cursor.values, orders).map { try convert($0, for: $1.field) }
        return Cursor(values: values, inclusive: cursor.inclusive)
    }
}

/// Page tokens: the sort-key values and path of the last document of a page, as hex-encoded JSON
/// `{"v":[…],"p":"path"}`. Resuming strictly after that position stays correct while documents are added or
/// removed, because the sort order is total (it ends with `id`).
package enum PageToken {
    package static func encode(_ document: Document, orders: [Order]) -> String {
        let values: [JSONValue] = orders.map { order in
            switch order.field {
            case .id: .string(document.id)
            case .createTime: .string(RFC3339.format(document.createTime))
            case .updateTime: .string(RFC3339.format(document.updateTime))
            case .field(let path): document.fields.value(at: path) ?? .null
            }
        }
        let token: JSONValue = .object(JSONObject([("v", .array(values)), ("p", .string(document.path.description))]))
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in token.jsonBytes {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    package static func decode(_ token: String, orders: [Order]) throws -> (values: [JSONValue], path: DocumentPath) {
        let invalid = ValidationError.invalidQuery("the page token is invalid or belongs to a different query")
        let digits = Array(token.utf8)
        guard digits.count % 2 == 0 else { throw invalid }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        func nibble(_ c: UInt8) throws -> UInt8 {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            default: throw invalid
            }
        }
        for position in stride(from: 0, to: digits.count, by: 2) {
            bytes.append(try nibble(digits[position]) << 4 | nibble(digits[position + 1]))
        }
        guard case .object(let object)? = try? JSONValue.parse(bytes),
            case .array(let values)? = object["v"], values.count == orders.count,
            case .string(let pathText)? = object["p"], let path = try? DocumentPath(pathText)
        else { throw invalid }
        let converted = try zip(values, orders).map { try NormalizedQuery.convert($0, for: $1.field) }
        return (converted, path)
    }
}
