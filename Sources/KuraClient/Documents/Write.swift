internal import KuraModel

/// One write of a commit, as `POST /api/commit` takes it. User data is split into plain data and the
/// transforms its `FieldValue` sentinels ask for.
struct Write: Sendable, Equatable {
    enum Operation: Sendable, Equatable {
        case create(DocumentData)
        case set(DocumentData, merge: Bool)
        /// Keys are dotted field paths.
        case update(DocumentData)
        case delete
    }

    enum Precondition: Sendable, Equatable {
        case exists(Bool)
        case version(Int64)
    }

    var path: String
    var operation: Operation
    var transforms: [(field: String, transform: FieldTransform)] = []
    var precondition: Precondition?
    /// When the write was made on this device (queued writes): the time local reads show for its transforms and
    /// `updateTime` until the server's answer arrives. Not sent.
    var localTime: String?
    /// The server applied it and `localTime` is its commit time: its server timestamps are not estimates.
    var acknowledged = false

    static func == (lhs: Write, rhs: Write) -> Bool {
        lhs.path.bytesEqual(rhs.path) && lhs.operation == rhs.operation && lhs.precondition == rhs.precondition
            && lhs.transforms.map(\.field).bytesEqual(rhs.transforms.map(\.field))
            && lhs.transforms.map(\.transform) == rhs.transforms.map(\.transform)
    }

    /// `setData(_:merge:)` and batch/transaction sets: data keys are field names.
    static func set(_ path: String, _ data: DocumentData, merge: Bool) throws -> Write {
        var transforms: [(String, FieldTransform)] = []
        let plain = try extract(data, prefix: [], allowDelete: merge, into: &transforms)
        return Write(path: path, operation: .set(plain, merge: merge), transforms: transforms)
    }

    /// `addDocument`: create only.
    static func create(_ path: String, _ data: DocumentData) throws -> Write {
        var transforms: [(String, FieldTransform)] = []
        let plain = try extract(data, prefix: [], allowDelete: false, into: &transforms)
        return Write(path: path, operation: .create(plain), transforms: transforms)
    }

    /// `updateData(_:)`: keys are dotted field paths; the document must exist.
    static func update(_ path: String, _ fields: DocumentData) throws -> Write {
        var transforms: [(String, FieldTransform)] = []
        var plain: DocumentData = [:]
        for (key, value) in fields {
            guard !key.isEmpty else { throw KuraError.invalidArgument("field paths must not be empty") }
            switch value {
            case .transform(let transform): transforms.append((key, transform))
            case .map(let map):
                var nested: [(String, FieldTransform)] = []
                plain[key] = .map(try extract(map, prefix: [], allowDelete: false, into: &nested))
                transforms += nested.map { ("\(key).\($0.0)", $0.1) }
            default:
                try rejectNestedTransforms(value)
                plain[key] = value
            }
        }
        return Write(path: path, operation: .update(plain), transforms: transforms)
    }

    static func delete(_ path: String) -> Write { Write(path: path, operation: .delete) }

    /// Moves `FieldValue` sentinels out of `data` into `transforms` (field paths relative to the document).
    private static func extract(
        _ data: DocumentData, prefix: [String], allowDelete: Bool, into transforms: inout [(String, FieldTransform)]
    ) throws -> DocumentData {
        var plain: DocumentData = [:]
        for (key, value) in data {
            guard !key.isEmpty else { throw KuraError.invalidArgument("field names must not be empty") }
            switch value {
            case .transform(let transform):
                if transform == .delete && !allowDelete {
                    throw KuraError.invalidArgument(
                        "FieldValue.delete() works in updateData and setData(_:merge: true) only")
                }
                transforms.append((FieldPath(unchecked: prefix + [key]).description, transform))
            case .map(let map):
                plain[key] = .map(try extract(map, prefix: prefix + [key], allowDelete: allowDelete, into: &transforms))
            default:
                try rejectNestedTransforms(value)
                plain[key] = value
            }
        }
        return plain
    }

    private static func rejectNestedTransforms(_ value: KuraValue) throws {
        switch value {
        case .transform(let transform):
            throw KuraError.invalidArgument("FieldValue.\(transform) cannot be used inside an array")
        case .array(let elements): for element in elements { try rejectNestedTransforms(element) }
        case .map(let members): for member in members.values { try rejectNestedTransforms(member) }
        default: break
        }
    }

    /// The write as `POST /api/commit` takes it, in the model's wire form (the server decodes it with the model's
    /// `Write(json:)`); paths go as the caller wrote them, for the server to judge.
    var wire: JSONValue {
        func object(_ data: DocumentData) -> JSONObject { JSONObject(data.map { ($0.key, $0.value.model) }) }
        let operation: KuraModel.Write.WireOperation
        switch self.operation {
        case .create(let data): operation = .create(object(data))
        case .set(let data, let merge): operation = .set(object(data), merge: merge)
        case .update(let data): operation = .update(object(data))
        case .delete: operation = .delete
        }
        return KuraModel.Write.json(
            path: path, operation: operation, precondition: precondition?.model,
            transforms: transforms.map { ($0.field, $0.transform.model) })
    }

    /// `wire` as the SDK's value (the offline write queue stores writes so).
    var json: KuraValue {
        // Every object in it comes from a `DocumentData`, whose keys are distinct Swift strings: this cannot fail.
        (try? KuraValue(model: wire)) ?? .null
    }

    /// The inverse of `json` (the offline write queue stores writes as JSON).
    init(json: KuraValue) throws {
        guard let path = json["path"]?.stringValue, let op = json["op"]?.stringValue else {
            throw KuraError.invalidResponse("a stored write without path or op")
        }
        self.path = path
        let data = json["data"]?.mapValue ?? [:]
        switch op {
        case "create": operation = .create(data)
        case "set": operation = .set(data, merge: json["merge"]?.boolValue ?? false)
        case "update": operation = .update(data)
        default: operation = .delete
        }
        if let exists = json["precondition"]?["exists"]?.boolValue {
            precondition = .exists(exists)
        } else if let version = json["precondition"]?["version"]?.int64Value {
            precondition = .version(version)
        }
        transforms = try (json["transforms"]?.arrayValue ?? []).map { item in
            guard let field = item["field"]?.stringValue else { throw KuraError.invalidResponse("bad transform") }
            let transform: FieldTransform
            if let value = item["increment"] {
                transform = .increment(value)
            } else if let value = item["maximum"] {
                transform = .maximum(value)
            } else if let value = item["minimum"] {
                transform = .minimum(value)
            } else if let values = item["arrayUnion"]?.arrayValue {
                transform = .arrayUnion(values)
            } else if let values = item["arrayRemove"]?.arrayValue {
                transform = .arrayRemove(values)
            } else if item["serverTimestamp"] != nil {
                transform = .serverTimestamp
            } else {
                transform = .delete
            }
            return (field, transform)
        }
    }

    init(
        path: String, operation: Operation, transforms: [(field: String, transform: FieldTransform)] = [],
        precondition: Precondition? = nil
    ) {
        self.path = path
        self.operation = operation
        self.transforms = transforms
        self.precondition = precondition
    }
}

/// What the server answered to a commit: each write's new version, and the commit time (read with the model's
/// `CommitResponse`, which the server writes it with).
struct CommitResult: Sendable {
    var versions: [Int64]
    var commitTime: String

    init(json: KuraValue?) {
        let response = CommitResponse(json: json?.model)
        versions = response.results.map(\.version)
        commitTime = response.commitTime ?? ""
    }
}

extension Kura {
    /// Applies `writes` atomically (`POST /api/commit`); through the offline queue when persistence is on.
    func commit(_ writes: [Write]) async throws {
        for write in writes { try ResourcePath.validate(ResourcePath.split(write.path), document: true) }
        guard !writes.isEmpty else { return }
        if let offline {
            try await offline.submit(writes)
        } else {
            _ = try await sendCommit(writes)
        }
    }

    /// `POST /api/commit` straight to the server.
    func sendCommit(_ writes: [Write]) async throws -> CommitResult {
        // As `json`: objects from `DocumentData`s, so the conversion cannot fail.
        let body = (try? KuraValue(model: CommitRequest.json(writes: writes.map(\.wire)))) ?? .null
        let response = try await call(APIRequest("POST", "/api/commit", body: body))
        return CommitResult(json: response.body)
    }
}
