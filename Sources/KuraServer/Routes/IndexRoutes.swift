import KuraCore
import KuraHTTP
import KuraModel
import KuraStore

/// `/api/admin/indexes`: the composite indexes and their build state (`GET`), declaring more (`POST`, one index or
/// a whole `firestore.indexes.json` document) and dropping one (`DELETE /api/admin/indexes/{id}`). For the admin
/// key or users with the `admin` claim (`CallerPolicy.admin`).
struct IndexRoutes {
    let indexes: any CompositeIndexing
    let callers: CallerResolution

    func register(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        forAdmins.get("/api/admin/indexes") { request, context in
            try context.offload {
                return Self.listResponse(indexes.compositeIndexes)
            }
        }
        forAdmins.post("/api/admin/indexes") { request, context in
            try context.offload {
                let body = try JSONValue.parse(request.body)
                let declared: [CompositeIndex]
                if case .object(let object) = body, object["indexes"] != nil {
                    declared = try CompositeIndex.parseFile(request.body)
                } else {
                    declared = [try CompositeIndex(json: body)]
                }
                return Self.listResponse(try declared.map { try indexes.createIndex($0) })
            }
        }
        forAdmins.delete("/api/admin/indexes/:id") { request, context in
            try context.offload {
                let text = try request.parameter("id")
                guard let id = Int64(text), indexes.dropIndex(id: id) else {
                    throw APIError.notFound("no composite index with id '\(text)'")
                }
                return .json(JSONValue.object([:]).jsonBytes)
            }
        }
    }

    /// `{"indexes":[{…definition…, "id", "state", "documentsScanned"}], "fieldOverrides": []}`: the file shape,
    /// so the answer can be saved as `kura.indexes.json`.
    private static func listResponse(_ statuses: [CompositeIndexStatus]) -> Response {
        .json(
            JSONValue.object(["indexes": .array(statuses.map(\.json)), "fieldOverrides": .array([])]).jsonBytes)
    }
}

extension QueryExplanation {
    /// `{"index","compositeIndexId","rowsExamined","rowsReturned","plan","suggestedIndex"}`.
    var json: JSONValue {
        var object: JSONObject = [
            "index": .string(index), "rowsExamined": .int(rowsExamined), "rowsReturned": .int(rowsReturned),
            "plan": .array(plan.map(JSONValue.string)),
        ]
        object["compositeIndexId"] = compositeIndexID.map(JSONValue.int) ?? .null
        if let suggestedIndex { object["suggestedIndex"] = suggestedIndex.json }
        return .object(object)
    }
}
