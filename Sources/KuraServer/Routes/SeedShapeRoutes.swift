import KuraCore
import KuraHTTP
import KuraModel
import KuraStore

/// `GET /api/seed/hit_7th/datalist` and `GET /api/seed/hit_7th/datalist/{id}`: the quiz app's `quizzes` collection
/// (apps/quiz/README.md) in the JSON the "7位を当てろ！" article's PHP server answered, read-only, so the article's
/// iOS client works against Kura with only its URL changed. Every value is a string, as PHP's `json_encode` of a
/// MySQL row wrote it: `{"id","title","1st"…"10th","data1"…"data10","memo"}`, `dataN` being the value and the
/// unit (`"83,424 km²"`). Read under the security rules as any caller (`CallerPolicy.anyone`), like `/api/docs`.
struct SeedShapeRoutes {
    let store: any DocumentStore
    let access: DataAccess
    let callers: CallerResolution
    let pages: PageLimits

    static let collection = "quizzes"
    static let ordinals = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"]

    func register(on router: Router<KuraContext>) {
        let forAnyone = callers.routes(.anyone, on: router)
        forAnyone.get("/api/seed/hit_7th/datalist") { _, context in
            let caller = context.caller
            return try context.offload { try list(caller) }
        }
        forAnyone.get("/api/seed/hit_7th/datalist/:id") { request, context in
            let caller = context.caller
            let id = try request.parameter("id")
            return try context.offload { try one(id, caller) }
        }
    }

    /// Every quiz the caller may list, in the order of their numeric IDs; documents not in a quiz's shape are left
    /// out.
    private func list(_ caller: Caller) throws -> Response {
        var query = StructuredQuery(.collection(try CollectionPath(Self.collection)))
        query.limit = pages.maxPageSize
        var documents: [Document] = []
        while true {
            let page = try access.query(query, caller: caller)
            documents += page.documents
            guard let token = page.nextPageToken, !page.documents.isEmpty else { break }
            query.pageToken = token
        }
        let rows = documents.compactMap(Self.row).sorted { Self.numericOrder($0.id, $1.id) }
        return .json(JSONValue.array(rows.map(\.json)).jsonBytes)
    }

    /// One quiz: 403 when the rules do not let the caller read it, 404 when it is missing or not a quiz.
    private func one(_ id: String, _ caller: Caller) throws -> Response {
        let path = try CollectionPath(Self.collection).document(id)
        let document = try store.get(path)
        try access.authorize(
            caller, .get, path: path.segments, resource: document.map { DataAccess.ruleDocument(path, $0.fields) },
            time: WallClock.nowMicros(), rules: access.rules.current.ruleSet, onLoop: false)
        guard let document, let row = Self.row(document) else { throw APIError.notFound("no quiz \(id)") }
        return .json(row.json.jsonBytes)
    }

    /// A seed row: the ID and the members in the seed's column order.
    struct Row {
        var id: String
        var json: JSONValue
    }

    static func row(_ document: Document) -> Row? {
        guard case .string(let title)? = document.fields["title"],
            case .array(let entries)? = document.fields["entries"]
        else { return nil }
        let unit = document.fields["unit"]?.stringValue ?? ""
        var names: [Int: String] = [:]
        var values: [Int: String] = [:]
        for entry in entries {
            guard let entry = entry.objectValue, case .int(let rank)? = entry["rank"], (1...10).contains(rank),
                case .string(let name)? = entry["name"], let value = entry["value"].flatMap(number)
            else { return nil }
            names[Int(rank)] = name
            values[Int(rank)] = value + (unit.isEmpty ? "" : " " + unit)
        }
        var members: [(String, JSONValue)] = [("id", .string(document.id)), ("title", .string(title))]
        for rank in 1...10 { members.append((ordinals[rank - 1], .string(names[rank] ?? ""))) }
        for rank in 1...10 { members.append(("data\(rank)", .string(values[rank] ?? ""))) }
        members.append(("memo", .string(document.fields["memo"]?.stringValue ?? "")))
        return Row(id: document.id, json: .object(JSONObject(members)))
    }

    /// `83424` → `"83,424"`, `669.26` → `"669.26"`: the integer part grouped by threes (as the quiz app shows it).
    static func number(_ value: JSONValue) -> String? {
        let text: String
        switch value {
        case .int(let integer): text = String(integer)
        case .double(let double) where double.isFinite:
            text = double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : "\(double)"
        default: return nil
        }
        let parts = text.split(separator: ".", maxSplits: 1)
        var whole = Substring(parts[0])
        let negative = whole.hasPrefix("-")
        if negative { whole = whole.dropFirst() }
        var grouped = ""
        for (index, character) in whole.enumerated() {
            if index > 0, (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (negative ? "-" : "") + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// Numeric IDs in numeric order, before any others in byte order.
    static func numericOrder(_ a: String, _ b: String) -> Bool {
        switch (Int(a), Int(b)) {
        case (let x?, let y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
    }
}
