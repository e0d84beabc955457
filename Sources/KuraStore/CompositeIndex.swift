import KuraCore
import KuraModel

/// A declared composite index, as Firestore has them: an ordered list of fields, each ascending, descending or
/// `CONTAINS` (the elements of an array, for `array-contains`), over every collection with one collection ID.
///
/// Its entries (see `CompositeIndexKey`) sort exactly in the order of the queries it serves, so such a query reads
/// only the entries it returns. A document has entries only when every indexed field is present (and, for the
/// `CONTAINS` field, an array: one entry per distinct element). The document ID is the implicit last key, in the
/// direction of the last ordered field unless the definition ends with `__name__` (Firestore's rule).
///
/// The JSON shape is one element of `indexes` in Firebase's `firestore.indexes.json`.
public struct CompositeIndex: Sendable, Hashable, CustomStringConvertible {
    /// Which queries may use the index.
    public enum Scope: String, Sendable, Hashable {
        /// Queries on one collection (any collection with the collection ID).
        case collection = "COLLECTION"
        /// Collection-group queries.
        case collectionGroup = "COLLECTION_GROUP"
    }

    /// How one field is indexed.
    public enum Mode: String, Sendable, Hashable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
        /// `arrayConfig: CONTAINS`: one entry per distinct element of an array field.
        case contains = "CONTAINS"
    }

    /// One indexed field.
    public struct Field: Sendable, Hashable {
        /// The field path.
        public var path: FieldPath
        /// Its order, or `CONTAINS`.
        public var mode: Mode

        /// Creates an indexed field.
        public init(_ path: FieldPath, _ mode: Mode) {
            self.path = path
            self.mode = mode
        }
    }

    /// The collection ID the index covers.
    public var collectionGroup: String
    /// Collection or collection-group queries.
    public var scope: Scope
    /// The indexed fields in key order (without `__name__`).
    public var fields: [Field]
    /// Direction of the document ID, the last key.
    public var nameDescending: Bool

    /// Most fields of one index.
    public static let maxFields = 16

    /// Creates an index; the ID direction defaults to that of the last ordered field.
    public init(collectionGroup: String, scope: Scope = .collection, fields: [Field], nameDescending: Bool? = nil)
        throws
    {
        do { try ResourcePath.validateID(collectionGroup) } catch {
            throw APIError.badRequest("index: invalid collectionGroup '\(collectionGroup)'")
        }
        guard !fields.isEmpty, fields.count <= Self.maxFields else {
            throw APIError.badRequest("index: needs 1 to \(Self.maxFields) fields besides __name__")
        }
        guard Set(fields.map(\.path)).count == fields.count else {
            throw APIError.badRequest("index: a field is listed more than once")
        }
        guard fields.filter({ $0.mode == .contains }).count <= 1 else {
            throw APIError.badRequest("index: at most one field with arrayConfig CONTAINS")
        }
        self.collectionGroup = collectionGroup
        self.scope = scope
        self.fields = fields
        self.nameDescending =
            nameDescending ?? (fields.last { $0.mode != .contains }.map { $0.mode == .descending } ?? false)
    }

    /// Reads one index of `firestore.indexes.json`: `{"collectionGroup","queryScope","fields":[{"fieldPath",
    /// "order"|"arrayConfig"}]}`. Other members (`density`, `apiScope`…) are accepted and ignored.
    public init(json: JSONValue) throws {
        guard case .object(let object) = json else { throw APIError.badRequest("index: expected an object") }
        guard case .string(let group)? = object["collectionGroup"] else {
            throw APIError.badRequest("index: 'collectionGroup' (a collection ID) is required")
        }
        var scope = Scope.collection
        if let value = object["queryScope"] {
            guard case .string(let text) = value, let parsed = Scope(rawValue: text) else {
                throw APIError.badRequest("index: queryScope must be COLLECTION or COLLECTION_GROUP")
            }
            scope = parsed
        }
        guard case .array(let items)? = object["fields"] else {
            throw APIError.badRequest("index: 'fields' (an array) is required")
        }
        var fields: [Field] = []
        var nameDescending: Bool?
        for (position, item) in items.enumerated() {
            guard case .object(let spec) = item, case .string(let pathText)? = spec["fieldPath"] else {
                throw APIError.badRequest("index: every field needs a 'fieldPath'")
            }
            let mode: Mode
            switch (spec["order"], spec["arrayConfig"]) {
            case (.string(let order)?, nil) where order == "ASCENDING" || order == "DESCENDING":
                mode = Mode(rawValue: order) ?? .ascending
            case (nil, .string("CONTAINS")?):
                mode = .contains
            default:
                throw APIError.badRequest(
                    "index: field '\(pathText)' needs \"order\": ASCENDING|DESCENDING or \"arrayConfig\": CONTAINS")
            }
            if pathText == "__name__" {
                guard position == items.count - 1, mode != .contains else {
                    throw APIError.badRequest("index: __name__ can only be the last field, ordered")
                }
                nameDescending = mode == .descending
                continue
            }
            let path: FieldPath
            do { path = try FieldPath(pathText) } catch {
                throw APIError.badRequest("index: invalid fieldPath '\(pathText)'")
            }
            fields.append(Field(path, mode))
        }
        try self.init(collectionGroup: group, scope: scope, fields: fields, nameDescending: nameDescending)
    }

    /// Reads a whole `firestore.indexes.json` document: `{"indexes":[…],"fieldOverrides":[…]}` (field overrides
    /// are accepted and ignored: every field already has its single-field index).
    public static func parseFile(_ bytes: some Collection<UInt8>) throws -> [CompositeIndex] {
        let json: JSONValue
        do { json = try JSONValue.parse(Array(bytes)) } catch {
            throw APIError.badRequest("indexes: the file is not valid JSON")
        }
        guard case .object(let object) = json else { throw APIError.badRequest("indexes: expected an object") }
        guard let indexes = object["indexes"] else { return [] }
        guard case .array(let items) = indexes else { throw APIError.badRequest("indexes: 'indexes' is an array") }
        return try items.map(CompositeIndex.init(json:))
    }

    /// The `firestore.indexes.json` form; `__name__` is listed only when it differs from the default.
    public var json: JSONValue {
        var items: [JSONValue] = fields.map { field in
            let member: (String, JSONValue) =
                field.mode == .contains
                ? ("arrayConfig", .string("CONTAINS")) : ("order", .string(field.mode.rawValue))
            return .object(JSONObject([("fieldPath", .string(field.path.description)), member]))
        }
        let defaultDescending = fields.last { $0.mode != .contains }.map { $0.mode == .descending } ?? false
        if nameDescending != defaultDescending {
            items.append(
                .object(
                    JSONObject([
                        ("fieldPath", .string("__name__")),
                        ("order", .string(nameDescending ? "DESCENDING" : "ASCENDING")),
                    ])))
        }
        return .object(
            JSONObject([
                ("collectionGroup", .string(collectionGroup)), ("queryScope", .string(scope.rawValue)),
                ("fields", .array(items)),
            ]))
    }

    /// `todos (done ASC, createdAt DESC) COLLECTION`.
    public var description: String {
        let list = fields.map { field in
            "\(field.path) \(field.mode == .ascending ? "ASC" : field.mode == .descending ? "DESC" : "CONTAINS")"
        }
        return "\(collectionGroup) (\(list.joined(separator: ", "))) \(scope.rawValue)"
    }
}

/// A composite index as the store knows it: its definition and build state.
public struct CompositeIndexStatus: Sendable {
    /// Build state, Firestore's names.
    public enum State: String, Sendable {
        /// Being built in the background; queries do not use it yet.
        case creating = "CREATING"
        /// Complete and kept by every write; queries use it.
        case ready = "READY"
        /// The build failed (see `message`).
        case error = "ERROR"
    }

    /// Stable identifier (admin API: `DELETE /api/admin/indexes/{id}`).
    public var id: Int64
    /// The definition.
    public var index: CompositeIndex
    /// Build state.
    public var state: State
    /// Documents the build has gone through so far.
    public var documentsScanned: Int64
    /// Why the build failed, for `ERROR`.
    public var message: String?

    /// Creates a status.
    public init(id: Int64, index: CompositeIndex, state: State, documentsScanned: Int64, message: String? = nil) {
        self.id = id
        self.index = index
        self.state = state
        self.documentsScanned = documentsScanned
        self.message = message
    }

    /// The admin API form: the definition plus `id`, `state`, `documentsScanned` (and `message`).
    public var json: JSONValue {
        guard case .object(var object) = index.json else { return index.json }
        object["id"] = .int(id)
        object["state"] = .string(state.rawValue)
        object["documentsScanned"] = .int(documentsScanned)
        if let message { object["message"] = .string(message) }
        return .object(object)
    }
}

/// A store with declared composite indexes (the SQLite engine; the admin API and `explain` use it).
public protocol CompositeIndexing: Sendable {
    /// Every composite index and its state.
    var compositeIndexes: [CompositeIndexStatus] { get }
    /// Declares `index` and starts building it in the background; returns the existing one for a definition
    /// that is already declared.
    @discardableResult func createIndex(_ index: CompositeIndex) throws -> CompositeIndexStatus
    /// Drops an index; `false` when there is no index with `id`.
    func dropIndex(id: Int64) -> Bool
    /// Blocks until the index builds and drops started so far are done.
    func waitForIndexJobs()
    /// Runs `query` and reports the index it used and the rows it examined.
    func explain(_ query: StructuredQuery) throws -> QueryExplanation
}
